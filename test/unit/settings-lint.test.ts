// "Nothing outside the settings module reads the environment" is a lint rule (eslint.config.js,
// settings/no-raw-env): a planted read fails lint; the settings loader and the CLI entry may.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
// The rule block exactly as `npm run lint` applies it (its files and allow-list), without the
// type-aware rules, whose TypeScript program would cost this test half a minute.
const root = fileURLToPath(new URL('../../', import.meta.url));
const configFile: string = `${root}eslint.config.js`;
const { settingsRules } = (await import(configFile)) as { settingsRules: Linter.Config };
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [
    { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as Linter.Parser } },
    settingsRules,
  ],
});

/** The settings rule's findings for `text` linted as if it were the file at `path`. */
async function rawEnvFindings(path: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: `${root}${path}` });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'settings/no-raw-env')
    .map((message) => `${message.line}: ${message.message}`);
}

describe('settings lint rule', () => {
  const file = 'src/features/data/sandbox-arrivals.ts';
  const original = readFileSync(`${root}${file}`, 'utf8');

  it('the real file passes', async () => {
    assert.deepEqual(await rawEnvFindings(file, original), []);
  });

  it('planted reads of the environment in a feature fail', async () => {
    const planted = [
      original,
      'export const a = process.env.SANDBOX_ARRIVAL_MINUTES;',
      "export const b = (config: { env: Record<string, string> }) => config.env['X'];",
      "export const c = (env: Record<string, string>) => env['X'];",
      'export const d = ({ env }: { env: object }) => env;',
    ].join('\n');
    const findings = await rawEnvFindings(file, planted);
    assert.equal(findings.length, 4, findings.join('\n'));
    assert.ok(findings.every((finding) => finding.includes('config.settings')));
  });

  it('the settings loader and the CLI entry may read it', async () => {
    const read = 'export const a = process.env.PORT;\n';
    for (const allowed of ['src/core/settings.ts', 'src/runtime/main.ts'])
      assert.deepEqual(
        await rawEnvFindings(allowed, readFileSync(`${root}${allowed}`, 'utf8') + read),
        [],
        allowed,
      );
  });
});

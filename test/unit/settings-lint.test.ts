// "Nothing outside the settings module reads the environment" is a lint rule (eslint.config.js,
// settings/no-raw-env): planted reads fail, settings read through config pass (ESLint's RuleTester on
// small inputs; the real tree is `npm run lint`'s), and the configuration applies the rule to every
// module of src but the settings loader and the CLI entry.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint, RuleTester, type Rule } from 'eslint';
import tseslint from 'typescript-eslint';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const root = fileURLToPath(new URL('../../', import.meta.url));
const { noRawEnv, RAW_ENV_ALLOWED } = (await import(`${root}eslint.config.js`)) as {
  noRawEnv: Rule.RuleModule;
  RAW_ENV_ALLOWED: string[];
};

new RuleTester({ languageOptions: { parser: tseslint.parser } }).run('settings/no-raw-env', noRawEnv, {
  valid: [
    'export const minutes = (config: { settings: { sandbox: { arrivalMinutes: number } } }) => config.settings.sandbox.arrivalMinutes;',
    'export const environment = (developer: { environment: string }) => developer.environment;',
    'const envelope = { env: 1 };\nexport const value = envelope;',
  ],
  invalid: [
    { code: 'export const a = process.env.SANDBOX_ARRIVAL_MINUTES;', errors: [{ messageId: 'raw' }] },
    {
      code: "export const b = (config: { env: Record<string, string> }) => config.env['X'];",
      errors: [{ messageId: 'raw' }],
    },
    { code: "export const c = (env: Record<string, string>) => env['X'];", errors: [{ messageId: 'raw' }] },
    { code: 'export const d = ({ env }: { env: object }) => env;', errors: [{ messageId: 'raw' }] },
  ],
});

describe('settings rule in the lint configuration', () => {
  const eslint = new ESLint({ cwd: root });
  const severity = async (path: string) =>
    ((await eslint.calculateConfigForFile(path)) as { rules?: Record<string, unknown> }).rules?.[
      'settings/no-raw-env'
    ];

  it('applies to the modules of src', async () => {
    assert.deepEqual(await severity('src/features/data/sandbox-arrivals.ts'), [2]);
    assert.deepEqual(await severity('src/http/app.ts'), [2]);
  });

  it('the settings loader and the CLI entry may read the environment', async () => {
    assert.ok(RAW_ENV_ALLOWED.includes('src/core/settings.ts'));
    assert.ok(RAW_ENV_ALLOWED.includes('src/runtime/main.ts'));
    for (const allowed of RAW_ENV_ALLOWED) assert.equal(await severity(allowed), undefined, allowed);
  });
});

// Ids are minted by src/core/ids.ts only (issue 27 item 4), and that is a rule, not a wish: the lint
// configuration `npm run lint` uses passes on the real modules and fails on planted bypasses.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: root });
// Planted text is linted as if it were this module (a real file of the program, so the type-aware
// rules of the configuration can run on it).
const host = 'src/features/lab-reports/events.ts';

async function idFindings(text: string, filePath = host): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: join(root, filePath) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'ids/mint-through-core')
    .map((message) => `${message.line}: ${message.messageId} ${message.message}`);
}

describe('ids are minted through core/ids.ts (lint)', () => {
  it('the real modules that mint ids pass', async () => {
    for (const path of [host, 'src/features/lab-reports/service.ts', 'src/features/developers/api-keys.ts'])
      assert.deepEqual(await idFindings(readFileSync(join(root, path), 'utf8'), path), [], path);
  });

  it('planted bypasses fail: a prefix built by hand, random bytes made into text, randomUUID', async () => {
    const findings = await idFindings(
      [
        "import { randomBytes, randomUUID } from 'node:crypto';",
        'export const a = `evt_${randomUUID()}`;',
        "export const b = `upl_${randomBytes(8).toString('hex')}`;",
        "export const c = `tru_${'x'}`;",
        'export const d = crypto.randomUUID();',
        "export const e = `${'ok'}-${randomBytes(4).toString('hex')}`;",
        'export const f = `evt_count_${1}`;',
        '',
      ].join('\n'),
    );
    assert.deepEqual(
      findings.map((finding) => finding.split(' ').slice(0, 2).join(' ')),
      ['1: uuid', '2: prefix', '3: randomText', '3: prefix', '4: prefix', '5: uuid', '6: randomText'],
      findings.join('\n'),
    );
    assert.match(findings[1]!, /"evt_" id built by hand/);
    assert.match(findings[3]!, /"upl_" id built by hand/);
    assert.match(findings[4]!, /"tru_" id built by hand/);
  });
});

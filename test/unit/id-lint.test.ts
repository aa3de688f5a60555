// Ids are minted by src/core/ids.ts only (issue 27 item 4), and that is a rule, not a wish: the
// ESLint rule `ids/mint-through-core` (scripts/eslint/ids-rule.js) passes what ids.ts allows and
// fails planted bypasses (ESLint's RuleTester, on small inputs; the real tree is `npm run lint`'s).
// The configuration applies it to every module of src but ids.ts itself.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint, RuleTester, type Rule } from 'eslint';
import tseslint from 'typescript-eslint';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const root = fileURLToPath(new URL('../../', import.meta.url));
const { mintThroughCore } = (await import(`${root}scripts/eslint/ids-rule.js`)) as {
  mintThroughCore: Rule.RuleModule;
};

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });

tester.run('ids/mint-through-core', mintThroughCore, {
  valid: [
    "import { newId, newToken } from '../../core/ids.ts';\nexport const a = newId('evt');\nexport const b = newToken('whs');",
    // A registered prefix in plain text, or followed by a word rather than an expression, is no id.
    'export const name = `evt_count_total`;\nexport const label = `upl: ${1}`;',
    "import { randomBytes } from 'node:crypto';\nexport const key = randomBytes(32);",
    "import { createHash } from 'node:crypto';\nexport const digest = createHash('sha256').update('x').digest('hex');",
  ],
  invalid: [
    {
      code: "import { randomUUID } from 'node:crypto';\nexport const a = `evt_${randomUUID()}`;",
      errors: [
        { messageId: 'uuid', line: 1 },
        { messageId: 'prefix', line: 2, data: { prefix: 'evt' } },
      ],
    },
    {
      code: "import { randomBytes } from 'node:crypto';\nexport const b = `upl_${randomBytes(8).toString('hex')}`;",
      errors: [
        { messageId: 'randomText', line: 2 },
        { messageId: 'prefix', line: 2, data: { prefix: 'upl' } },
      ],
    },
    { code: "export const c = `tru_${'x'}`;", errors: [{ messageId: 'prefix', data: { prefix: 'tru' } }] },
    { code: 'export const d = crypto.randomUUID();', errors: [{ messageId: 'uuid' }] },
    {
      code: "import { randomBytes } from 'node:crypto';\nexport const e = `${'ok'}-${randomBytes(4).toString('hex')}`;",
      errors: [{ messageId: 'randomText' }],
    },
    {
      code: "import * as crypto from 'node:crypto';\nexport const f = `x${crypto.randomBytes(4).toString('base64url')}`;",
      errors: [{ messageId: 'randomText' }],
    },
  ],
});

describe('ids rule in the lint configuration', () => {
  const eslint = new ESLint({ cwd: root });
  const severity = async (path: string) =>
    ((await eslint.calculateConfigForFile(path)) as { rules?: Record<string, unknown> }).rules?.[
      'ids/mint-through-core'
    ];

  it('applies to the modules of src, not to ids.ts, which mints', async () => {
    assert.deepEqual(await severity('src/features/lab-reports/events.ts'), [2]);
    assert.deepEqual(await severity('src/core/ids.ts'), undefined);
  });
});

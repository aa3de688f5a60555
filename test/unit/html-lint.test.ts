// The rule that pages are built with the html tag is kept by lint, not by reviewers: the page
// block of the project's ESLint config (eslint.config.js, pageMarkupRules) rejects raw markup in
// src/http/dashboard and src/http/hosted (a plain template literal or string holding tags, another
// template tag, a computed trustedHtml) and accepts a page built with the tag (ESLint's RuleTester
// on small inputs; the real tree is `npm run lint`'s). The type-aware half, a fragment coerced
// into a plain template, is typescript-eslint's restrict-template-expressions: checked here to be
// on for those files.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint, type Linter, RuleTester, type Rule } from 'eslint';
import { builtinRules } from 'eslint/use-at-your-own-risk';
import tseslint from 'typescript-eslint';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const root = fileURLToPath(new URL('../../', import.meta.url));
const { pageMarkupRules } = (await import(`${root}eslint.config.js`)) as { pageMarkupRules: Linter.Config };
const [, ...selectors] = pageMarkupRules.rules!['no-restricted-syntax'] as [string, ...object[]];

const SAFE_PAGE = `import { html, type SafeHtml } from '../safe-html.ts';

export function greeting(name: string, items: string[]): SafeHtml {
  return html\`<h1>Hello \${name}</h1><ul>\${items.map((item) => html\`<li>\${item}</li>\`)}</ul>\`;
}
`;

const message = (start: string) => {
  const found = selectors.find((selector) => (selector as { message: string }).message.startsWith(start));
  assert.ok(found, start);
  return (found as { message: string }).message;
};

new RuleTester({ languageOptions: { parser: tseslint.parser } }).run(
  'no-restricted-syntax (pages)',
  builtinRules.get('no-restricted-syntax') as Rule.RuleModule,
  {
    valid: [
      { code: SAFE_PAGE, options: selectors },
      {
        code: "import { trustedHtml } from '../safe-html.ts';\nexport const x = trustedHtml('&nbsp;');",
        options: selectors,
      },
      // A comparison in text is no markup.
      { code: 'export const note = `a < b`;', options: selectors },
    ],
    invalid: [
      {
        code: 'export const row = (name: string) => `<tr><td>${name}</td></tr>`;',
        options: selectors,
        // One finding per piece of text that holds a tag.
        errors: Array.from({ length: 2 }, () => ({
          message: message('Build markup with the html`…` tag from src/http/safe-html.ts, not a plain'),
        })),
      },
      {
        code: "export const a = '<p>hi</p>';",
        options: selectors,
        errors: [
          { message: message('Build markup with the html`…` tag from src/http/safe-html.ts, not a string') },
        ],
      },
      {
        code: "const tag = (s: TemplateStringsArray) => s.join('');\nexport const b = tag`<p>hi</p>`;",
        options: selectors,
        errors: [{ message: message('The only template tag') }],
      },
      {
        code: "import { trustedHtml } from '../safe-html.ts';\nexport const page = (body: string) => trustedHtml(body);",
        options: selectors,
        errors: [{ message: message('trustedHtml takes a constant') }],
      },
    ],
  },
);

describe('page rules in the lint configuration', () => {
  const eslint = new ESLint({ cwd: root });
  const rulesFor = async (path: string) =>
    ((await eslint.calculateConfigForFile(path)) as { rules?: Record<string, unknown[]> }).rules ?? {};

  it('apply to dashboard and hosted pages and the sandbox consent page, with the type-aware rule', async () => {
    for (const path of [
      'src/http/dashboard/charts.ts',
      'src/http/hosted/widget-pages.ts',
      'src/http/routes/sandbox-consent.ts',
    ]) {
      const rules = await rulesFor(path);
      assert.deepEqual(rules['no-restricted-syntax'], [2, ...selectors], path);
      assert.deepEqual(
        rules['@typescript-eslint/restrict-template-expressions'],
        [2, { allowNumber: true }],
        path,
      );
    }
  });

  it('do not apply outside the page folders', async () => {
    const rules = await rulesFor('src/http/routes/widget.ts');
    assert.equal(rules['no-restricted-syntax'], undefined);
  });
});

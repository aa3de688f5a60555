// The rule that pages are built with the html tag is kept by lint, not by reviewers: the project's
// own ESLint config must reject raw markup in src/http/dashboard and src/http/hosted (a plain
// template literal or string holding tags, a fragment coerced into a plain template, a computed
// trustedHtml) and must accept a page built with the tag.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: root });

/**
 * Lints `code` as if it were the content of the file at `path` in the real tree (nothing is
 * written). Real paths, because the type-aware rules only lint files the TypeScript project holds.
 */
async function problems(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${path}` });
  return (result?.messages ?? []).map((message) => `${message.ruleId ?? 'fatal'}: ${message.message}`);
}

const SAFE_PAGE = `import { html, type SafeHtml } from '../safe-html.ts';

export function greeting(name: string, items: string[]): SafeHtml {
  return html\`<h1>Hello \${name}</h1><ul>\${items.map((item) => html\`<li>\${item}</li>\`)}</ul>\`;
}
`;

describe('html lint rule', { timeout: 120_000 }, () => {
  it('accepts a page built with the html tag', async () => {
    assert.deepEqual(await problems('src/http/dashboard/charts.ts', SAFE_PAGE), []);
    assert.deepEqual(await problems('src/http/hosted/widget-pages.ts', SAFE_PAGE), []);
  });

  it('rejects markup in a plain template literal', async () => {
    const found = await problems(
      'src/http/dashboard/keys.ts',
      'export const row = (name: string) => `<tr><td>${name}</td></tr>`;\n',
    );
    assert.ok(
      found.some((p) => p.startsWith('no-restricted-syntax: Build markup with the html')),
      found.join('\n'),
    );
  });

  it('rejects markup in a string literal and in another tag', async () => {
    const found = await problems(
      'src/http/hosted/page.ts',
      "const tag = (s: TemplateStringsArray) => s.join('');\nexport const a = '<p>hi</p>';\nexport const b = tag`<p>hi</p>`;\n",
    );
    assert.ok(
      found.some((p) => p.includes('not a string literal')),
      found.join('\n'),
    );
    assert.ok(
      found.some((p) => p.includes('The only template tag')),
      found.join('\n'),
    );
  });

  it('rejects a fragment turned into a string by a plain template literal', async () => {
    const found = await problems(
      'src/http/dashboard/orders.ts',
      "import { html } from '../safe-html.ts';\nexport const pill = html`<b>x</b>`;\nexport const text = `${pill} and more`;\n",
    );
    assert.ok(
      found.some((p) => p.startsWith('@typescript-eslint/restrict-template-expressions')),
      found.join('\n'),
    );
  });

  it('rejects trustedHtml of a computed value', async () => {
    const found = await problems(
      'src/http/hosted/html.ts',
      "import { trustedHtml } from '../safe-html.ts';\nexport const page = (body: string) => trustedHtml(body);\n",
    );
    assert.ok(
      found.some((p) => p.includes('trustedHtml takes a constant')),
      found.join('\n'),
    );
  });

  it('outside the page folders the rule does not apply', async () => {
    assert.deepEqual(await problems('src/http/routes/widget.ts', 'export const note = `a < b`;\n'), []);
  });
});

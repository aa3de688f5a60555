/**
 * HTML that is escaped by construction. Every page of the dashboard and the hosted flows is built
 * with the `html` tag: each interpolated value is escaped for text and quoted-attribute context
 * (& < > " ') unless it is itself `SafeHtml` — a fragment built by `html`, or a constant handed to
 * `trustedHtml`. A page is a `SafeHtml` value; replies take nothing else, so a forgotten escape is
 * a type error rather than a reviewer's catch.
 *
 * Hand-written rather than a package: the ~40 lines below are the whole job, and the small
 * libraries that do it (ghtml, html-template-tag, common-tags' safeHtml) return plain strings, so
 * a nested fragment is escaped twice or needs a per-site opt-out marker — the branded type is the
 * point.
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeText(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/** Markup that is safe to send as is. Only this module can make one (the field is private). */
class SafeHtml {
  readonly #markup: string;
  constructor(markup: string) {
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
}

export type { SafeHtml };

/**
 * What may be interpolated: text and numbers (escaped), fragments (as they are), lists of either
 * (joined with nothing between), and null, undefined or false (nothing, for `cond && html\`…\``).
 */
export type HtmlValue = SafeHtml | string | number | bigint | false | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.toString();
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  return escapeText(String(value));
}

/** The tag: the literal parts are the author's markup, every `${value}` is escaped unless it is SafeHtml.
 * It reads the cooked text: a non-ASCII character in the markup is written `\u2026` (the bundle's
 * chunks stay ASCII, and a tagged template's text is kept as written: scripts/ascii-chunk.ts).
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let markup = strings[0] ?? '';
  for (let index = 0; index < values.length; index += 1) {
    markup += render(values[index]) + (strings[index + 1] ?? '');
  }
  return new SafeHtml(markup);
}

/** Fragments (or text, escaped) with `separator` (text, escaped) between them. */
export function joinHtml(parts: readonly HtmlValue[], separator: string): SafeHtml {
  return new SafeHtml(parts.map(render).join(escapeText(separator)));
}

/**
 * Markup taken as it is, unescaped: only for constants written in this code base (an inline
 * stylesheet, whose quotes must reach the browser as quotes). Never for anything that came in
 * a request, a database row or a provider.
 */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

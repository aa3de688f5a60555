// XML's lexical rules as the export scanner (export-scanner.ts) applies them: names, entity and
// character references, attribute-value normalization, the characters XML allows, the XML
// declaration; and the two errors the scanner throws.

/** The document is not well-formed XML; the message says where it breaks the rules. */
export class XmlSyntaxError extends Error {
  override name = 'XmlSyntaxError';
}

/** The document passes one of the scanner's bounds; the message names it. */
export class XmlBoundError extends Error {
  override name = 'XmlBoundError';
}

// XML 1.0 (fifth edition) names: what saxes checks with xmlns off (a colon is a name character).
const NAME_START =
  ':A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
// eslint-disable-next-line no-misleading-character-class -- the ranges of combining marks XML names allow
const NAME = new RegExp(`^[${NAME_START}][${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040]*$`, 'u');

export function isName(name: string): boolean {
  return NAME.test(name);
}

/**
 * Names repeat (a dozen element and attribute names make a whole export): each is checked once and
 * then found here by where it sits in the text, without slicing it out again. A slot holds the
 * last name of its hash; the hash is of the first and last characters and the length.
 */
const NAME_SLOTS = 4096;
export function createNameCache() {
  const slots = new Array<string | undefined>(NAME_SLOTS);
  /** The name at [from, to) of `text`, checked; null when it is no XML name. */
  return (text: string, from: number, to: number): string | null => {
    const length = to - from;
    const slot = (text.charCodeAt(from) * 31 + text.charCodeAt(to - 1) * 7 + length * 131) & (NAME_SLOTS - 1);
    const known = slots[slot];
    if (known !== undefined && known.length === length && text.startsWith(known, from)) return known;
    const name = text.slice(from, to);
    if (!NAME.test(name)) return null;
    if (length <= 64) slots[slot] = name;
    return name;
  };
}

const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The XML 1.0 Char production. */
const isXmlChar = (code: number) =>
  code === 0x9 ||
  code === 0xa ||
  code === 0xd ||
  (code >= 0x20 && code <= 0xd7ff) ||
  (code >= 0xe000 && code <= 0xfffd) ||
  (code >= 0x10000 && code <= 0x10ffff);

/** What one reference (`amp`, `#38`, `#x26`: the text between `&` and `;`) stands for. */
function resolveReference(reference: string): string {
  if (reference.charCodeAt(0) !== 35) {
    if (Object.hasOwn(PREDEFINED, reference)) return PREDEFINED[reference]!;
    throw new XmlSyntaxError(
      isName(reference) ? 'undefined entity.' : 'disallowed character in entity name.',
    );
  }
  let code = Number.NaN;
  if (/^#x[0-9a-f]+$/i.test(reference) && reference[1] === 'x')
    code = Number.parseInt(reference.slice(2), 16);
  else if (/^#[0-9]+$/.test(reference)) code = Number.parseInt(reference.slice(1), 10);
  if (!isXmlChar(code)) throw new XmlSyntaxError('malformed character entity.');
  return String.fromCodePoint(code);
}

/** `text` with its references replaced; throws on a malformed or undefined one. */
export function expandReferences(text: string): string {
  let out = '';
  let from = 0;
  for (let amp = text.indexOf('&'); amp !== -1; amp = text.indexOf('&', from)) {
    const semicolon = text.indexOf(';', amp + 1);
    if (semicolon === -1) throw new XmlSyntaxError('unterminated entity reference.');
    if (semicolon === amp + 1) throw new XmlSyntaxError('empty entity name.');
    out += text.slice(from, amp) + resolveReference(text.slice(amp + 1, semicolon));
    from = semicolon + 1;
  }
  return out + text.slice(from);
}

// Anything but plain text in a value: a reference, a line end or tab (normalized), a `<` (refused).
export const VALUE_SPECIAL = /[<&\t\n\r]/g;

/** A value holding a special character as XML reads it (attribute-value normalization, no DTD). */
export function attributeValue(raw: string): string {
  if (raw.includes('<')) throw new XmlSyntaxError('disallowed character.');
  // `\r\n` is one line end, read as one space; a reference's own line end stays.
  const spaced = raw.replace(/\r\n|[\r\n\t]/g, ' ');
  return spaced.includes('&') ? expandReferences(spaced) : spaced;
}

// XML 1.0 forbids these control characters; real exports contain them in user-named sources
// (mobile-sources.md §2.4), so they are read as spaces. U+FFFE and U+FFFF are refused. (Half a
// surrogate pair is never seen: the text comes from a UTF-8 decoder.)
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

export const XML_DECLARATION = new RegExp(
  '^<\\?xml(?:[ \\t\\r\\n]+version[ \\t\\r\\n]*=[ \\t\\r\\n]*(?:"1\\.[0-9]+"|\'1\\.[0-9]+\'))' +
    '(?:[ \\t\\r\\n]+encoding[ \\t\\r\\n]*=[ \\t\\r\\n]*(?:"[A-Za-z][A-Za-z0-9._-]*"|\'[A-Za-z][A-Za-z0-9._-]*\'))?' +
    '(?:[ \\t\\r\\n]+standalone[ \\t\\r\\n]*=[ \\t\\r\\n]*(?:"(?:yes|no)"|\'(?:yes|no)\'))?[ \\t\\r\\n]*\\?>$',
);

/**
 * Makes a bundle chunk pure ASCII without changing what it does (scripts/build-bundle.ts).
 *
 * Why (issue 42, later start): V8 keeps a source whose every character is Latin-1 as a one-byte
 * string and any other as a two-byte one, and Node decodes a file with a single non-ASCII byte
 * through its slower UTF-8 path. A few characters (an ellipsis or a dash in a comment, luxon's
 * examples in its comments, a `µ` in a regex) made the runtime chunk 5.5 MB of string instead of
 * 2.8 MB, ~4 MB more resident, and slower to decode and to scan at every start.
 *
 * esbuild escapes what it prints itself (strings, identifiers, plain template literals), but it
 * keeps some text as written: comments it carries over (class members' JSDoc, legal comments),
 * regular expression literals, and the raw text of tagged templates. This parses the chunk
 * (TypeScript's parser, a devDependency like esbuild) so that each non-ASCII character is
 * rewritten for where it stands:
 * - in a comment: as the text `\uXXXX` (a line or paragraph separator as a newline, which it is;
 *   other Unicode white space between tokens as a space);
 * - in a regular expression, a string, an identifier or a plain template literal: as the escape
 *   `\uXXXX` (`\u{…}` in an identifier), which means the same character there;
 * - in a tagged template: refused. The tag may read the raw text (String.raw does), where an
 *   escape is six characters, not one: the source should write the escape itself (the dashboard's
 *   `html` tag reads the cooked text, where `\u2026` is `…`).
 * The result is parsed again and every literal's value and identifier's name compared.
 */
import ts from 'typescript';

/** A character esbuild left that cannot be escaped without changing the program. */
export class NotAsciiSafe extends Error {
  constructor(name: string, text: string, offset: number, why: string) {
    const line = text.slice(0, offset).split('\n').length;
    // esbuild names each module's first line in a comment: the source to change.
    const source = [...text.slice(0, offset).matchAll(/^\/\/ (\S+)$/gm)].at(-1)?.[1];
    const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
    const context = text.slice(Math.max(lineStart, offset - 60), offset + 20).replaceAll('\n', ' ');
    super(`${name}:${line}${source ? ` (from ${source})` : ''}: ${why}: …${context}…`);
  }
}

const NON_ASCII = /[\u0080-\uffff]/;

/** Whether `bytes` (a chunk as written) hold only ASCII: every byte below 0x80. */
export function isAscii(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte > 0x7f) return false;
  return true;
}

type Token = { start: number; end: number; node: ts.Node; tagged: boolean };

const LITERAL_KINDS = new Set([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.Identifier,
  ts.SyntaxKind.PrivateIdentifier,
]);

/** Whether a template part belongs to a tagged template (its raw text is observable). */
function inTaggedTemplate(node: ts.Node): boolean {
  if (ts.isNoSubstitutionTemplateLiteral(node)) return ts.isTaggedTemplateExpression(node.parent);
  const template = ts.isTemplateHead(node) ? node.parent : node.parent?.parent; // head, or span's
  return template !== undefined && ts.isTaggedTemplateExpression(template.parent);
}

function parse(name: string, text: string): ts.SourceFile {
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  // Only a chunk the parser reads as esbuild wrote it can be rewritten with confidence.
  const diagnostics = (file as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
  if (diagnostics.length > 0) {
    const first = diagnostics[0]!;
    throw new NotAsciiSafe(
      name,
      text,
      first.start ?? 0,
      ts.flattenDiagnosticMessageText(first.messageText, ' '),
    );
  }
  return file;
}

/** The leaf tokens that hold one of `offsets` (sorted), in source order. */
function tokensHolding(file: ts.SourceFile, offsets: number[]): Token[] {
  const tokens: Token[] = [];
  const holds = (start: number, end: number) => {
    let low = 0;
    let high = offsets.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (offsets[middle]! < start) low = middle + 1;
      else high = middle;
    }
    return low < offsets.length && offsets[low]! < end;
  };
  const visit = (node: ts.Node) => {
    if (!holds(node.pos, node.end)) return;
    if (LITERAL_KINDS.has(node.kind)) {
      const start = node.getStart(file);
      if (holds(start, node.end)) tokens.push({ start, end: node.end, node, tagged: inTaggedTemplate(node) });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return tokens;
}

const hex = (unit: number) => `\\u${unit.toString(16).padStart(4, '0')}`;
const isLineBreak = (unit: number) => unit === 0x2028 || unit === 0x2029;

/** `text` with every non-ASCII character rewritten for where it stands (see above). */
export function asciiOnly(name: string, text: string): string {
  if (!NON_ASCII.test(text)) return text;
  const offsets: number[] = [];
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) offsets.push(index);
  const before = parse(name, text);
  const tokens = tokensHolding(before, offsets);
  let out = '';
  let copied = 0;
  let next = 0; // the first token that may still hold an offset
  for (let position = 0; position < offsets.length; position++) {
    const offset = offsets[position]!;
    const unit = text.charCodeAt(offset);
    while (next < tokens.length && tokens[next]!.end <= offset) next++;
    const token = tokens[next] && tokens[next]!.start <= offset ? tokens[next] : undefined;
    out += text.slice(copied, offset);
    copied = offset + 1;
    if (!token) {
      // Outside every token: a comment, or white space between tokens.
      if (isLineBreak(unit)) out += '\n';
      else if (/\s/.test(text[offset]!)) out += ' ';
      else out += hex(unit);
      continue;
    }
    if (token.tagged)
      throw new NotAsciiSafe(
        name,
        text,
        offset,
        'a non-ASCII character in a tagged template, whose raw text the tag may read: write it as \\uXXXX in the source',
      );
    if (ts.isIdentifier(token.node) || ts.isPrivateIdentifier(token.node)) {
      const point = text.codePointAt(offset)!;
      if (point > 0xffff) {
        offsets.splice(position + 1, 1); // its trailing surrogate is written here too
        copied = offset + 2;
      }
      out += `\\u{${point.toString(16)}}`;
      continue;
    }
    let backslashes = 0;
    while (text[offset - 1 - backslashes] === '\\') backslashes++;
    if (backslashes % 2 === 1) {
      // `\` and a line separator continue a string's line: so do `\` and a newline.
      if (isLineBreak(unit)) {
        out += '\n';
        continue;
      }
      // `\é` is `é` (an identity escape): its escape replaces both.
      out = out.slice(0, -1);
    }
    out += hex(unit);
  }
  out += text.slice(copied);
  if (NON_ASCII.test(out)) throw new Error(`${name}: still not ASCII after rewriting`);
  assertSameValues(name, before, parse(name, out));
  return out;
}

/** Each literal's value (cooked text) and each identifier's name, in source order. */
function values(file: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) found.push(`${node.kind}:${node.text}`);
    else if (ts.isRegularExpressionLiteral(node)) found.push(`${node.kind}:${regexValue(node.text)}`);
    else if (ts.isStringLiteral(node) || ts.isTemplateLiteralToken(node))
      found.push(`${node.kind}:${node.text}`);
    else ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/**
 * A regular expression literal by what it matches: its source with the escapes this rewriting
 * writes (`\uXXXX`) and the identity escapes it replaces (`\é`) both read as the character.
 */
function regexValue(literal: string): string {
  return literal.replace(
    /\\(?:u([0-9a-f]{4})|([\u0080-\uffff]))/gi,
    (_, code: string | undefined, character: string) =>
      code ? String.fromCharCode(parseInt(code, 16)) : character,
  );
}

function assertSameValues(name: string, before: ts.SourceFile, after: ts.SourceFile) {
  const was = values(before);
  const is = values(after);
  const differs = was.findIndex((value, index) => value !== is[index]);
  if (differs >= 0 || was.length !== is.length)
    throw new Error(`${name}: rewriting to ASCII changed a value: ${was[differs]} became ${is[differs]}`);
}

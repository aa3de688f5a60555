// The export's XML read by a scanner of its own (issue 44): an export is millions of start tags
// with quoted attributes, one per line, and little else, so it is read a tag at a time with
// `indexOf` rather than a character at a time by a general SAX parser (saxes took 1.2 s of CPU for
// a 32 MB export, the parts the import keeps building its elements besides, against 0.5 s for a
// bare saxes scan). Only the data elements the provider names (children of the root) are built,
// as the `XmlElement`s the provider reads; everything else is checked and passed over.
//
// It is still a checker of well-formedness, as strict as saxes on what an export can hold: names,
// attribute syntax and quoting, duplicate attributes, entity and character references, nesting and
// matching end tags, comments, CDATA sections, processing instructions and the XML declaration,
// text outside the root, one root. A malformed file fails its import with the reason
// (XmlSyntaxError); a file past one of the reader's bounds fails with the bound named
// (XmlBoundError). Attribute values are normalized as XML says (line ends and tabs become spaces,
// references are replaced), and attributes are null-prototype objects, as saxes gives them.
//
// Text arrives in slices (chunks of a stream): a construct cut by the end of a slice waits, at
// most `maxTagChars` of it (a text run at most `maxTextChars`), for the next.
import type { XmlElement } from '../../provider-kit/mobile/samples.ts';
import {
  attributeValue,
  CONTROL,
  createNameCache,
  expandReferences,
  FORBIDDEN,
  isName,
  VALUE_SPECIAL,
  XML_DECLARATION,
  XmlBoundError,
  XmlSyntaxError,
} from './xml-lexicon.ts';

export { XmlBoundError, XmlSyntaxError } from './xml-lexicon.ts';

export type ScannerLimits = {
  maxDepth: number;
  maxTagChars: number;
  maxTextChars: number;
  maxChildren: number;
  maxElementsPerRecord: number;
  maxElements: number;
};

const LESS = 60;
const GREATER = 62;
const SLASH = 47;
const EQUALS = 61;
const QUESTION = 63;
const BANG = 33;
const DOUBLE_QUOTE = 34;
const SINGLE_QUOTE = 39;
const AMPERSAND = 38;
const CLOSE_BRACKET = 93;

const isSpace = (code: number) => code === 32 || code === 10 || code === 9 || code === 13;

export type ExportScanner = {
  /** The next slice of the document, in order. */
  write(text: string): void;
  /** The end of the document: throws when it is cut short. */
  close(): void;
};

/**
 * A scanner handing `onElement` every complete element named in `wanted` that is a child of the
 * root, with its descendants, in document order.
 */
export function createExportScanner(
  wanted: ReadonlySet<string>,
  limits: ScannerLimits,
  onElement: (element: XmlElement) => void,
): ExportScanner {
  /** The start of a construct or text run the last slice ended in. */
  let pending = '';
  /** Characters of the document before `pending`: the XML declaration may only come first. */
  let consumed = 0;
  /** Names of the open elements. */
  const open: string[] = [];
  /** The data element being built and its open descendants. */
  const building: XmlElement[] = [];
  let elements = 0;
  let elementsInRecord = 0;
  let sawRoot = false;
  let closedRoot = false;
  let sawDoctype = false;

  const tooLong = () =>
    new XmlBoundError(
      `a tag (its name and attributes), comment or CDATA section is longer than ${limits.maxTagChars} characters (attribute length limit)`,
    );
  const textTooLong = () => new XmlBoundError(`a text run is longer than ${limits.maxTextChars} characters`);

  /** Text between two constructs: only spaces outside the root; no bad reference or `]]>` inside. */
  function checkText(text: string, from: number, to: number): void {
    for (let index = from; index < to; index++) {
      const code = text.charCodeAt(index);
      if (isSpace(code)) continue;
      if (open.length === 0) throw new XmlSyntaxError('text data outside of root node.');
      if (code === AMPERSAND || code === CLOSE_BRACKET) {
        const run = text.slice(from, to);
        if (run.includes(']]>')) throw new XmlSyntaxError('the string "]]>" is disallowed in char data.');
        expandReferences(run);
        return;
      }
    }
  }

  function openElement(name: string, attributes: Record<string, string> | null, selfClosing: boolean) {
    if (open.length + 1 > limits.maxDepth)
      throw new XmlBoundError(`it nests deeper than ${limits.maxDepth} levels`);
    if (++elements > limits.maxElements)
      throw new XmlBoundError(`it has more than ${limits.maxElements} elements`);
    if (closedRoot) throw new XmlSyntaxError('documents may contain only one root.');
    sawRoot = true;
    open.push(name);
    if (attributes) {
      const element: XmlElement = { name, attributes, children: [] };
      if (building.length > 0) {
        const parent = building.at(-1)!;
        if (parent.children.length >= limits.maxChildren)
          throw new XmlBoundError(`a ${parent.name} has more than ${limits.maxChildren} children`);
        if (++elementsInRecord > limits.maxElementsPerRecord)
          throw new XmlBoundError(
            `a ${building[0]!.name} holds more than ${limits.maxElementsPerRecord} elements`,
          );
        parent.children.push(element);
      } else {
        elementsInRecord = 1;
      }
      building.push(element);
    }
    if (selfClosing) closeElement();
  }

  function closeElement() {
    open.pop();
    if (open.length === 0) closedRoot = true;
    if (building.length === 0) return;
    const element = building.pop()!;
    if (building.length === 0) onElement(element);
  }

  /** Whether the element opening now is built: a wanted child of the root, or inside one. */
  const capturing = (name: string) => building.length > 0 || (open.length === 1 && wanted.has(name));

  const nameAt = createNameCache();
  // The next special character of a value (VALUE_SPECIAL) in the text being scanned: searched once
  // per tag or so (an export's only ones are the line end after each tag and a device's `&lt;`),
  // not once per value.
  let specialIn = -1;
  let specialAt = -1;
  let scanned = 0;
  const nextSpecial = (text: string, from: number) => {
    if (specialIn !== scanned || specialAt < from) {
      VALUE_SPECIAL.lastIndex = from;
      specialAt = VALUE_SPECIAL.exec(text)?.index ?? Number.POSITIVE_INFINITY;
      specialIn = scanned;
    }
    return specialAt;
  };
  // Values with references repeat too (a device's description on every record of a source): the
  // last few read, found by position and compared in place.
  const VALUE_SLOTS = 64;
  const rawValues = new Array<string | undefined>(VALUE_SLOTS);
  const readValues = new Array<string>(VALUE_SLOTS);
  function specialValue(text: string, from: number, to: number): string {
    const length = to - from;
    if (length > 512) return attributeValue(text.slice(from, to));
    const slot =
      (length * 131 + text.charCodeAt(from + (length >> 1)) * 7 + text.charCodeAt(from + (length >> 2))) &
      (VALUE_SLOTS - 1);
    const raw = rawValues[slot];
    if (raw !== undefined && raw.length === length && text.startsWith(raw, from)) return readValues[slot]!;
    const value = attributeValue(text.slice(from, to));
    rawValues[slot] = text.slice(from, to);
    readValues[slot] = value;
    return value;
  }

  /**
   * A start tag from `<` at `at`: returns the index after its `>`, or -1 when the text ends
   * inside it.
   */
  function startTag(text: string, at: number): number {
    const length = text.length;
    let index = at + 1;
    while (index < length) {
      const code = text.charCodeAt(index);
      if (code === 32 || code === GREATER || code === 10 || code === SLASH || code === 9 || code === 13)
        break;
      index++;
    }
    if (index >= length) return -1;
    const name = index > at + 1 ? nameAt(text, at + 1, index) : null;
    if (name === null) throw new XmlSyntaxError('disallowed character in tag name.');
    const attributes: Record<string, string> | null = capturing(name) ? Object.create(null) : null;
    // Names seen, for the duplicate check when the attributes are not kept.
    const names: string[] | null = attributes ? null : [];
    let hadAttribute = false;
    for (;;) {
      const spaceFrom = index;
      while (index < length && isSpace(text.charCodeAt(index))) index++;
      if (index >= length) return -1;
      const code = text.charCodeAt(index);
      if (code === GREATER) {
        openElement(name, attributes, false);
        return index + 1;
      }
      if (code === SLASH) {
        if (index + 1 >= length) return -1;
        if (text.charCodeAt(index + 1) !== GREATER)
          throw new XmlSyntaxError('forward-slash in opening tag not followed by >.');
        openElement(name, attributes, true);
        return index + 2;
      }
      if (hadAttribute && index === spaceFrom) throw new XmlSyntaxError('no whitespace between attributes.');
      const nameFrom = index;
      while (index < length) {
        const c = text.charCodeAt(index);
        if (c === EQUALS || c === 32 || c === GREATER || c === 10 || c === SLASH || c === 9 || c === 13)
          break;
        index++;
      }
      if (index >= length) return -1;
      const attribute = index > nameFrom ? nameAt(text, nameFrom, index) : null;
      if (attribute === null) throw new XmlSyntaxError('disallowed character in attribute name.');
      while (index < length && isSpace(text.charCodeAt(index))) index++;
      if (index >= length) return -1;
      if (text.charCodeAt(index) !== EQUALS) throw new XmlSyntaxError('attribute without value.');
      index++;
      while (index < length && isSpace(text.charCodeAt(index))) index++;
      if (index >= length) return -1;
      const quote = text.charCodeAt(index);
      if (quote !== DOUBLE_QUOTE && quote !== SINGLE_QUOTE)
        throw new XmlSyntaxError('unquoted attribute value.');
      const close = text.indexOf(quote === DOUBLE_QUOTE ? '"' : "'", index + 1);
      if (close === -1) return -1;
      const value =
        nextSpecial(text, index + 1) < close
          ? specialValue(text, index + 1, close)
          : text.slice(index + 1, close);
      if (attributes) {
        if (attributes[attribute] !== undefined)
          throw new XmlSyntaxError(`duplicate attribute: ${attribute}.`);
        attributes[attribute] = value;
      } else {
        if (names!.includes(attribute)) throw new XmlSyntaxError(`duplicate attribute: ${attribute}.`);
        names!.push(attribute);
      }
      hadAttribute = true;
      index = close + 1;
    }
  }

  /** An end tag from `<` at `at`: the index after its `>`, or -1. */
  function endTag(text: string, at: number): number {
    const close = text.indexOf('>', at + 2);
    if (close === -1) return -1;
    let nameEnd = at + 2;
    while (nameEnd < close && !isSpace(text.charCodeAt(nameEnd))) nameEnd++;
    for (let index = nameEnd; index < close; index++)
      if (!isSpace(text.charCodeAt(index))) throw new XmlSyntaxError('disallowed character in closing tag.');
    if (nameEnd === at + 2) throw new XmlSyntaxError('weird empty close tag.');
    if (open.length === 0) throw new XmlSyntaxError('unexpected close tag.');
    const expected = open.at(-1)!;
    if (expected.length !== nameEnd - at - 2 || !text.startsWith(expected, at + 2))
      throw new XmlSyntaxError(`unmatched closing tag: ${text.slice(at + 2, nameEnd)}.`);
    closeElement();
    return close + 1;
  }

  /** A processing instruction (or the XML declaration) from `<` at `at`. */
  function instruction(text: string, at: number): number {
    const close = text.indexOf('?>', at + 2);
    if (close === -1) return -1;
    const body = text.slice(at + 2, close);
    let targetEnd = 0;
    // The target ends at a space, or (as saxes reads it) at a `?`, which then belongs to the data.
    while (
      targetEnd < body.length &&
      !isSpace(body.charCodeAt(targetEnd)) &&
      body.charCodeAt(targetEnd) !== QUESTION
    )
      targetEnd++;
    const target = body.slice(0, targetEnd);
    if (target === '') throw new XmlSyntaxError('processing instruction without a target.');
    if (!isName(target)) throw new XmlSyntaxError('disallowed character in processing instruction name.');
    if (target.toLowerCase() === 'xml') {
      if (consumed + at !== 0 || target !== 'xml')
        throw new XmlSyntaxError('an XML declaration must be at the start of the document.');
      if (!XML_DECLARATION.test(text.slice(at, close + 2)))
        throw new XmlSyntaxError('the XML declaration is malformed.');
    }
    return close + 2;
  }

  /** A DOCTYPE before the root (the reader drops the first; saxes takes one more): skipped. */
  function doctype(text: string, at: number): number {
    if (sawDoctype || sawRoot) throw new XmlSyntaxError('inappropriately located doctype declaration.');
    const bracket = text.indexOf('[', at);
    const close = text.indexOf('>', at);
    if (close === -1) return -1;
    if (bracket === -1 || close < bracket) {
      sawDoctype = true;
      return close + 1;
    }
    const subsetEnd = text.indexOf(']', bracket);
    if (subsetEnd === -1) return -1;
    let index = subsetEnd + 1;
    while (index < text.length && isSpace(text.charCodeAt(index))) index++;
    if (index >= text.length) return -1;
    if (text.charCodeAt(index) !== GREATER) throw new XmlSyntaxError('incorrect syntax.');
    sawDoctype = true;
    return index + 1;
  }

  /** `<!`: a comment, a CDATA section or a DOCTYPE. */
  function declaration(text: string, at: number): number {
    const head = text.slice(at + 2, at + 9);
    if (head.startsWith('--')) {
      const close = text.indexOf('-->', at + 4);
      if (close === -1) return -1;
      const body = text.slice(at + 4, close);
      if (body.includes('--') || body.endsWith('-')) throw new XmlSyntaxError('malformed comment.');
      return close + 3;
    }
    if (head.startsWith('[CDATA[')) {
      if (open.length === 0) throw new XmlSyntaxError('text data outside of root node.');
      const close = text.indexOf(']]>', at + 9);
      return close === -1 ? -1 : close + 3;
    }
    if (head.startsWith('DOCTYPE')) return doctype(text, at);
    // Too short yet to tell.
    if ('--'.startsWith(head) || '[CDATA['.startsWith(head) || 'DOCTYPE'.startsWith(head)) return -1;
    throw new XmlSyntaxError('incorrect syntax.');
  }

  /** The construct from `<` at `at`: the index after it, or -1 when the text ends inside it. */
  function construct(text: string, at: number): number {
    if (at + 1 >= text.length) return -1;
    const next = text.charCodeAt(at + 1);
    if (next === SLASH) return endTag(text, at);
    if (next === QUESTION) return instruction(text, at);
    if (next === BANG) return declaration(text, at);
    return startTag(text, at);
  }

  return {
    write(slice: string) {
      // One pass for what a real export rarely holds: characters XML 1.0 forbids.
      if (FORBIDDEN.test(slice)) {
        if (/[\uFFFE\uFFFF]/.test(slice)) throw new XmlSyntaxError('disallowed character.');
        slice = slice.replace(CONTROL, ' ');
      }
      const text = pending.length > 0 ? pending + slice : slice;
      scanned++;
      const length = text.length;
      let index = 0;
      while (index < length) {
        const less = text.indexOf('<', index);
        if (less === -1) {
          if (length - index > limits.maxTextChars) throw textTooLong();
          break;
        }
        if (less > index) {
          if (less - index > limits.maxTextChars) throw textTooLong();
          checkText(text, index, less);
          index = less;
        }
        const end = construct(text, less);
        if (end === -1) {
          if (length - less > limits.maxTagChars) throw tooLong();
          break;
        }
        if (end - less > limits.maxTagChars) throw tooLong();
        index = end;
      }
      pending = index < length ? text.slice(index) : '';
      consumed += index;
    },
    close() {
      if (pending.length > 0) {
        if (pending.charCodeAt(0) === LESS) throw new XmlSyntaxError('unexpected end.');
        checkText(pending, 0, pending.length);
        pending = '';
      }
      if (!sawRoot) throw new XmlSyntaxError('document must contain a root element.');
      if (open.length > 0) throw new XmlSyntaxError(`unclosed tag: ${open.at(-1)}`);
    },
  };
}

// A guard in front of a streaming XML parser for untrusted files (an export.xml, a route's GPX).
// The parser (saxes) buffers a whole attribute value, tag, text run, comment or CDATA section
// before it reports it (whether or not anything listens), so a 400 MB attribute is 400 MB of
// string before any handler could refuse it. This scan sees the text first, slice by slice, and
// refuses any of them beyond its limit while only a slice has been read. Linear: quoted values
// and the bodies of comments, CDATA sections and processing instructions are skipped with indexOf.

export type XmlShapeLimits = {
  /**
   * Characters from `<` to `>` of one tag (its name and every attribute with its value), and of
   * one comment, CDATA section, declaration or processing instruction.
   */
  maxTagChars: number;
  /** Characters of text between two tags (an export has only indentation there). */
  maxTextChars: number;
};

export class XmlLimitError extends Error {
  override name = 'XmlLimitError';
}

const GREATER = 62;
const DOUBLE_QUOTE = 34;
const SINGLE_QUOTE = 39;

/** What follows a `<`, and what ends it. */
type Construct = 'undecided' | 'element' | { end: string };

/** The construct a tag's first characters announce; 'undecided' while they could still be several. */
function constructOf(prefix: string): Construct {
  if (prefix === '') return 'undecided';
  if (prefix[0] === '?') return { end: '?>' };
  if (prefix[0] !== '!') return 'element';
  if (prefix.startsWith('!--')) return { end: '-->' };
  if (prefix.startsWith('![CDATA[')) return { end: ']]>' };
  if ('!--'.startsWith(prefix) || '![CDATA['.startsWith(prefix)) return 'undecided';
  return { end: '>' };
}

/** Returns a function to call with each slice of the document, in order; it throws past a limit. */
export function createXmlShapeGuard(limits: XmlShapeLimits): (text: string) => void {
  let inTag = false;
  let construct: Construct = 'undecided';
  let prefix = '';
  /** The last characters of the previous slice, when a terminator could straddle two slices. */
  let carry = '';
  let quote = 0;
  let tagChars = 0;
  let textChars = 0;

  const tooLong = () =>
    new XmlLimitError(
      `a tag (its name and attributes), comment or CDATA section is longer than ${limits.maxTagChars} characters (attribute length limit)`,
    );
  const endTag = () => {
    inTag = false;
    textChars = 0;
  };

  return (text: string) => {
    const length = text.length;
    let index = 0;
    while (index < length) {
      if (!inTag) {
        const open = text.indexOf('<', index);
        textChars += (open === -1 ? length : open) - index;
        if (textChars > limits.maxTextChars)
          throw new XmlLimitError(`a text run is longer than ${limits.maxTextChars} characters`);
        if (open === -1) return;
        inTag = true;
        construct = 'undecided';
        prefix = '';
        carry = '';
        quote = 0;
        tagChars = 1;
        index = open + 1;
        continue;
      }
      if (construct === 'undecided') {
        prefix += text[index];
        construct = constructOf(prefix);
        if (construct === 'element') continue; // this character is read again as the element's
        index++;
        tagChars++;
        continue;
      }
      if (typeof construct === 'object') {
        // A comment, CDATA section, declaration or processing instruction: up to its terminator.
        const window = carry + text.slice(index);
        const end = window.indexOf(construct.end);
        if (end === -1) {
          tagChars += length - index;
          if (tagChars > limits.maxTagChars) throw tooLong();
          carry = window.slice(-(construct.end.length - 1));
          return;
        }
        const consumed = end + construct.end.length - carry.length;
        tagChars += consumed;
        if (tagChars > limits.maxTagChars) throw tooLong();
        index += consumed;
        endTag();
        continue;
      }
      if (quote !== 0) {
        const close = text.indexOf(quote === DOUBLE_QUOTE ? '"' : "'", index);
        tagChars += (close === -1 ? length : close + 1) - index;
        if (tagChars > limits.maxTagChars) throw tooLong();
        if (close === -1) return;
        quote = 0;
        index = close + 1;
        continue;
      }
      const code = text.charCodeAt(index);
      index++;
      tagChars++;
      if (code === GREATER) endTag();
      else if (code === DOUBLE_QUOTE || code === SINGLE_QUOTE) quote = code;
      if (tagChars > limits.maxTagChars) throw tooLong();
    }
  };
}

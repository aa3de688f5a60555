// A guard in front of a streaming XML parser for untrusted files (an export.xml, a route's GPX).
// The parser (saxes) buffers a whole attribute value, tag or text run before it reports it, so a
// 400 MB attribute is 400 MB of string before any handler could refuse it. This scan sees the
// text first, slice by slice, and refuses a tag (name and attributes) or a text run beyond its
// limit while only a slice has been read. Linear: quoted values are skipped with indexOf.

export type XmlShapeLimits = {
  /** Characters from `<` to `>` of one tag: its name and every attribute with its value. */
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
const BANG = 33;
const QUESTION = 63;

/** Returns a function to call with each slice of the document, in order; it throws past a limit. */
export function createXmlShapeGuard(limits: XmlShapeLimits): (text: string) => void {
  let inTag = false;
  /** Comments, declarations and processing instructions: no quoting, they end at `>`. */
  let plainTag = false;
  let tagStart = true;
  let quote = 0;
  let tagChars = 0;
  let textChars = 0;

  const tagTooLong = () =>
    new XmlLimitError(
      `a tag (its name and attributes) is longer than ${limits.maxTagChars} characters (attribute length limit)`,
    );

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
        tagStart = true;
        plainTag = false;
        quote = 0;
        tagChars = 1;
        index = open + 1;
        continue;
      }
      if (quote !== 0) {
        const close = text.indexOf(quote === DOUBLE_QUOTE ? '"' : "'", index);
        tagChars += (close === -1 ? length : close + 1) - index;
        if (tagChars > limits.maxTagChars) throw tagTooLong();
        if (close === -1) return;
        quote = 0;
        index = close + 1;
        continue;
      }
      const code = text.charCodeAt(index);
      if (tagStart) {
        tagStart = false;
        plainTag = code === BANG || code === QUESTION;
      }
      index++;
      tagChars++;
      if (code === GREATER) {
        inTag = false;
        textChars = 0;
      } else if (!plainTag && (code === DOUBLE_QUOTE || code === SINGLE_QUOTE)) {
        quote = code;
      }
      if (tagChars > limits.maxTagChars) throw tagTooLong();
    }
  };
}

// Node hands a request header's value over as latin1: each byte one character. A client sending
// UTF-8 (the usual non-ASCII) would see its value echoed back as mojibake; what it sent is found
// again by reading those bytes as UTF-8.

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A header value as its sender wrote it: its bytes as UTF-8 when they are that, else as latin1. */
export function headerText(value: string): string {
  if (!/[\u0080-\u00ff]/.test(value)) return value; // ASCII: nothing to decode
  try {
    return utf8.decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}

/**
 * A value a caller sent, quoted for a problem's detail: JSON-escaped (quotes, control characters)
 * and cut at `max` characters (whole code points, never half a surrogate pair) with an ellipsis.
 */
export function quotedValue(value: string, max = 40): string {
  const characters = Array.from(value);
  return JSON.stringify(characters.length > max ? `${characters.slice(0, max).join('')}…` : value);
}

// A provider answer that is one JSON list (Garmin's summary pulls: a list of summaries of any
// length), read item by item as the body arrives. The bytes are scanned only for where each item
// of the list begins and ends (strings and nesting tracked); each item is then handed whole to
// JSON.parse. So memory holds one item and the current chunk, never the list as text or as one
// parsed array. (A streaming tokenizer library parsed these lists at 1.6 MB/s against
// JSON.parse's 53 MB/s on this machine: too slow for a provider deadline, hence this scanner.)

/** Thrown when the body is not one JSON list, is cut or malformed part way, or has a giant item. */
export class JsonItemsError extends Error {
  override name = 'JsonItemsError';
}

/**
 * The largest single item read by default (a day of second-by-second samples is a few MB); the
 * provider HTTP client passes its answer cap (PROVIDER_HTTP_MAX_ANSWER_MB) instead.
 */
export const MAX_ITEM_BYTES = 64 * 1024 * 1024;

const itemTooLarge = (maxItemBytes: number) =>
  new JsonItemsError(
    `an item of the list is over ${+(maxItemBytes / 2 ** 20).toFixed(2)} MB (PROVIDER_HTTP_MAX_ANSWER_MB): not read`,
  );

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const LETTER_N = 0x6e;
/** Bytes that matter inside an item outside strings: quotes and brackets; the rest are skipped fast. */
const STRUCTURAL = new Uint8Array(256);
for (const byte of [QUOTE, OPEN_LIST, CLOSE_LIST, OPEN_OBJECT, CLOSE_OBJECT]) STRUCTURAL[byte] = 1;
const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/**
 * The items of the top-level JSON list in `chunks`, in order. An empty body or `null` is no
 * items; any other top-level value (an object, a string) is a JsonItemsError, as is a body that
 * ends part way, is not JSON, or holds an item over `maxItemBytes`.
 */
export async function* jsonListItems(
  chunks: AsyncIterable<Uint8Array>,
  maxItemBytes = MAX_ITEM_BYTES,
): AsyncGenerator {
  let root: 'unknown' | 'list' | 'closed' | 'null' = 'unknown';
  // Between items: what may come next.
  let expect: 'first' | 'item' | 'comma' = 'first';
  // Inside an item: its nesting (1 = the list itself), string state, and a bare scalar.
  let depth = 0;
  let inItem = false;
  let inString = false;
  let escaped = false;
  let scalar = false;
  // The item's bytes from earlier chunks, and where it starts in this one (-1: an earlier chunk).
  let parts: Uint8Array[] = [];
  let partBytes = 0;
  let itemStart = -1;
  let ready: unknown[] = [];

  const finish = (chunk: Uint8Array, end: number) => {
    const tail = chunk.subarray(itemStart >= 0 ? itemStart : 0, end);
    const bytes = parts.length === 0 ? tail : Buffer.concat([...parts, tail]);
    if (bytes.byteLength > maxItemBytes) throw itemTooLarge(maxItemBytes);
    try {
      ready.push(JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')));
    } catch (error) {
      throw new JsonItemsError(`an item of the list is not JSON: ${(error as Error).message}`);
    }
    inItem = false;
    scalar = false;
    parts = [];
    partBytes = 0;
    itemStart = -1;
  };

  for await (const chunk of chunks) {
    if (root === 'null') continue;
    const length = chunk.length;
    for (let i = 0; i < length; i++) {
      // Fast paths: the run of a string up to its next quote or backslash, and the run of an
      // item's numbers, names and separators up to its next quote or bracket.
      if (inItem && !scalar && !escaped) {
        if (inString) while (i < length && chunk[i] !== QUOTE && chunk[i] !== BACKSLASH) i++;
        else while (i < length && STRUCTURAL[chunk[i]!] === 0) i++;
        if (i === length) break;
      }
      const byte = chunk[i]!;
      if (root === 'unknown') {
        if (isSpace(byte)) continue;
        if (byte === LETTER_N) {
          root = 'null';
          break;
        }
        if (byte !== OPEN_LIST) throw new JsonItemsError('the answer is not a JSON list');
        root = 'list';
        depth = 1;
        continue;
      }
      if (root === 'closed') {
        if (isSpace(byte)) continue;
        throw new JsonItemsError('something follows the end of the JSON list');
      }
      if (inItem) {
        if (inString) {
          if (escaped) escaped = false;
          else if (byte === BACKSLASH) escaped = true;
          else if (byte === QUOTE) {
            inString = false;
            if (depth === 1) finish(chunk, i + 1);
          }
          continue;
        }
        if (!scalar) {
          if (byte === QUOTE) inString = true;
          else if (byte === OPEN_OBJECT || byte === OPEN_LIST) depth += 1;
          else if (byte === CLOSE_OBJECT || byte === CLOSE_LIST) {
            depth -= 1;
            if (depth === 1) finish(chunk, i + 1);
          }
          continue;
        }
        // A bare scalar (a number, true, false, null) ends where a separator begins.
        if (byte !== COMMA && byte !== CLOSE_LIST && !isSpace(byte)) continue;
        finish(chunk, i);
      }
      // Between items.
      if (isSpace(byte)) continue;
      if (byte === COMMA) {
        if (expect !== 'comma') throw new JsonItemsError('the JSON list has a misplaced comma');
        expect = 'item';
        continue;
      }
      if (byte === CLOSE_LIST) {
        if (expect === 'item') throw new JsonItemsError('the JSON list ends with a comma');
        root = 'closed';
        depth = 0;
        continue;
      }
      if (expect === 'comma') throw new JsonItemsError('the JSON list lacks a comma between items');
      inItem = true;
      itemStart = i;
      expect = 'comma';
      if (byte === OPEN_OBJECT || byte === OPEN_LIST) depth += 1;
      else if (byte === QUOTE) inString = true;
      else scalar = true;
    }
    if (inItem) {
      const rest = chunk.subarray(itemStart >= 0 ? itemStart : 0);
      partBytes += rest.byteLength;
      if (partBytes > maxItemBytes) throw itemTooLarge(maxItemBytes);
      parts.push(Buffer.from(rest));
      itemStart = -1;
    }
    if (ready.length > 0) {
      const items = ready;
      ready = [];
      yield* items;
    }
  }
  if (root === 'list') throw new JsonItemsError('the JSON list breaks off before its end');
}

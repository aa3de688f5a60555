// A record's JSON text split for storage: the summary is the record with every sample array
// emptied (`[]`), the samples are `{"<path>":[…],…}`, and the splices remember where each array's
// text sits in both. Merging back is then a few string slices: no parsing and re-serializing of
// megabytes of samples on every read. Pure text work on model records, shared by the data feature
// (write and read paths) and the migrations that rewrite stored rows.
import { randomBytes } from 'node:crypto';

function valueAt(record: unknown, keys: readonly string[]): unknown {
  let node: unknown = record;
  for (const key of keys) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A copy of `node` with the value at `keys` replaced; objects along the path are shallow-copied. */
function replaceAt(node: unknown, keys: readonly string[], depth: number, value: unknown): unknown {
  const parent = node as Record<string, unknown>;
  const key = keys[depth]!;
  return {
    ...parent,
    [key]: depth === keys.length - 1 ? value : replaceAt(parent[key], keys, depth + 1, value),
  };
}

/** Stands in for a sample array while the summary is serialized; the nonce makes it unforgeable. */
// eslint-disable-next-line ids/mint-through-core -- a per-process nonce inside serialized text, not an id
const MARK = `\u0001${randomBytes(8).toString('hex')}:`;
const MARK_IN_JSON = new RegExp(`${JSON.stringify(MARK).slice(0, -1).replace(/\\/g, '\\\\')}(\\d+)"`, 'g');

/** Summary text, samples text and splices for a record whose sample paths are `paths`. */
export function splitSamples(
  record: unknown,
  paths: readonly string[],
): { summary: string; samples: string | null; splices: number[] | null } {
  let marked = record;
  const arrays: [string, unknown[]][] = [];
  for (const path of paths) {
    const keys = path.split('.');
    const value = valueAt(record, keys);
    if (!Array.isArray(value) || value.length === 0) continue;
    marked = replaceAt(marked, keys, 0, `${MARK}${arrays.length}`);
    arrays.push([path, value]);
  }
  if (arrays.length === 0) return { summary: JSON.stringify(record), samples: null, splices: null };

  const sampleParts: string[] = [];
  const ranges: [number, number][] = [];
  let length = 1;
  for (const [index, [path, values]] of arrays.entries()) {
    const head = `${index === 0 ? '' : ','}${JSON.stringify(path)}:`;
    const body = JSON.stringify(values);
    sampleParts.push(head, body);
    ranges.push([length + head.length, length + head.length + body.length]);
    length += head.length + body.length;
  }
  const markedText = JSON.stringify(marked);
  const summaryParts: string[] = [];
  const splices: number[] = [];
  let from = 0;
  let written = 0;
  for (const match of markedText.matchAll(MARK_IN_JSON)) {
    const before = markedText.slice(from, match.index);
    summaryParts.push(before, '[]');
    written += before.length;
    const range = ranges[Number(match[1])]!;
    splices.push(written, range[0], range[1]);
    written += 2;
    from = match.index + match[0].length;
  }
  summaryParts.push(markedText.slice(from));
  return { summary: summaryParts.join(''), samples: `{${sampleParts.join('')}}`, splices };
}

/**
 * The whole record's JSON text, as pieces: the summary's text between the emptied arrays, and
 * each sample array's text in its place. Slices share their parent strings, so nothing is copied
 * until the pieces are written out.
 */
export function mergedPieces(
  summary: string,
  samples: string | null,
  splices: readonly number[] | null,
): string[] {
  if (samples === null || splices === null || splices.length === 0) return [summary];
  const parts: string[] = [];
  let from = 0;
  for (let index = 0; index < splices.length; index += 3) {
    const at = splices[index]!;
    parts.push(summary.slice(from, at), samples.slice(splices[index + 1]!, splices[index + 2]!));
    from = at + 2;
  }
  parts.push(summary.slice(from));
  return parts;
}

/** The whole record's JSON text: the summary with each sample array's text spliced back in. */
export function mergeSamples(
  summary: string,
  samples: string | null,
  splices: readonly number[] | null,
): string {
  return mergedPieces(summary, samples, splices).join('');
}

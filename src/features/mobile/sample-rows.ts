// Samples as the columns they are stored in (mobile_samples), one array per column. Built where
// the samples are made: by an import's reader process (import-task.ts), so what crosses to the
// parent is six arrays of strings rather than thousands of sample objects to clone, and the
// parent hands the arrays to the store as they are; by an upload's job (sample-store.ts).
// Kept apart from repo.ts so the reader loads no store code (but the array literal's quoting).
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
import { quotedElement } from '../../store/text-array.ts';
import { localDayOf } from './unify/shared.ts';

export type SampleRows = {
  ids: string[];
  kinds: string[];
  days: string[];
  starts: string[];
  ends: string[];
  /** Each sample as JSON (JSON.stringify's: no raw line feed): what is stored, and what the rebuild parses back. */
  bodies: string[];
};

export const emptySampleRows = (): SampleRows => ({
  ids: [],
  kinds: [],
  days: [],
  starts: [],
  ends: [],
  bodies: [],
});

/** The rows of a batch of samples; the last copy of an id within the batch wins, as it would across batches. */
export function sampleRows(samples: readonly MobileSample[]): SampleRows {
  const byId = new Map<string, MobileSample>();
  for (const sample of samples) byId.set(sample.id, sample);
  const rows = emptySampleRows();
  for (const sample of byId.values()) {
    rows.ids.push(sample.id);
    rows.kinds.push(sample.kind);
    rows.days.push(localDayOf(sample));
    rows.starts.push(new Date(sample.startMs).toISOString());
    rows.ends.push(new Date(sample.endMs).toISOString());
    rows.bodies.push(JSON.stringify(sample));
  }
  return rows;
}

/**
 * A batch's rows as the store takes them (issue 44: fewer copies between an import's reader and
 * the service): each column in UTF-8, which crosses between processes as bytes (a copy of memory,
 * not thousands of strings to rebuild) and goes to PostgreSQL as it is, as a text parameter in
 * binary form. The short columns are array literals (store/text-array.ts); the bodies are their
 * JSON texts one per line, which needs no quoting at all (JSON text never holds a raw line feed:
 * JSON.stringify escapes every control character), where an array literal had a backslash put
 * before every quote of every body (a fifth of the reader's time) and PostgreSQL took it out
 * again. For the rebuild (imported-days.ts), each sample's day, where its body's line ends, and
 * its body's length.
 */
export type EncodedSampleRows = {
  count: number;
  /** ids, kinds, days, starts, ends: each column's array literal, UTF-8; bodies: one JSON text a line, UTF-8. */
  columns: Buffer[];
  days: string[];
  /** Byte offset in the bodies' column after each sample's body (at its line feed, or the end). */
  bodyEnds: Int32Array;
  /** Each body's length in UTF-16 code units, as `length` of the JS string. */
  bodyLengths: Int32Array;
};

/** Where columns are written before their used part is copied out: kept, so a batch allocates once. */
let scratch = Buffer.alloc(0);

/** Room in `scratch` for `chars` UTF-16 units: three bytes at most each. */
function scratchFor(chars: number): Buffer {
  if (scratch.length < chars * 3) scratch = Buffer.allocUnsafeSlow(chars * 3);
  return scratch;
}

/** `values` as one array literal in UTF-8. */
function literalBytes(values: readonly string[]): Buffer {
  const elements = new Array<string>(values.length);
  let chars = 2;
  for (let index = 0; index < values.length; index++) {
    elements[index] = quotedElement(values[index]!);
    chars += elements[index]!.length + 1;
  }
  const into = scratchFor(chars);
  let at = into.write('{', 0, 'latin1');
  for (let index = 0; index < elements.length; index++) {
    if (index > 0) at += into.write(',', at, 'latin1');
    at += into.write(elements[index]!, at, 'utf8');
  }
  at += into.write('}', at, 'latin1');
  return Buffer.from(into.subarray(0, at));
}

/** JSON texts one per line in UTF-8, and the byte offset after each. */
function lineBytes(texts: readonly string[]): { bytes: Buffer; ends: Int32Array } {
  let chars = 0;
  for (const text of texts) chars += text.length + 1;
  const into = scratchFor(chars);
  const ends = new Int32Array(texts.length);
  let at = 0;
  for (let index = 0; index < texts.length; index++) {
    // A line feed inside would split a body in two: not JSON.stringify's output.
    if (texts[index]!.includes('\n')) throw new Error('a sample body holds a line feed');
    if (index > 0) into[at++] = 0x0a;
    at += into.write(texts[index]!, at, 'utf8');
    ends[index] = at;
  }
  return { bytes: Buffer.from(into.subarray(0, at)), ends };
}

export function encodeSampleRows(rows: SampleRows): EncodedSampleRows {
  const bodies = lineBytes(rows.bodies);
  const bodyLengths = new Int32Array(rows.bodies.length);
  for (let index = 0; index < rows.bodies.length; index++) bodyLengths[index] = rows.bodies[index]!.length;
  return {
    count: rows.ids.length,
    columns: [
      literalBytes(rows.ids),
      literalBytes(rows.kinds),
      literalBytes(rows.days),
      literalBytes(rows.starts),
      literalBytes(rows.ends),
      bodies.bytes,
    ],
    days: rows.days,
    bodyEnds: bodies.ends,
    bodyLengths,
  };
}

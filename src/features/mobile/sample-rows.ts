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
  /** Each sample as JSON: what is stored, and what the rebuild parses back. */
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
 * the service): each column is one PostgreSQL array literal (store/text-array.ts) in UTF-8,
 * which crosses between processes as bytes (a copy of memory, not thousands of strings to
 * rebuild) and goes to PostgreSQL as it is, as a text parameter in binary form. For the rebuild
 * (imported-days.ts), each sample's day, where its element of the bodies' literal ends, and its
 * body's length.
 */
export type EncodedSampleRows = {
  count: number;
  /** ids, kinds, days, starts, ends, bodies: each column's array literal, UTF-8. */
  columns: Buffer[];
  days: string[];
  /** Byte offset in the bodies' literal after each sample's element (a JSON string of its body). */
  bodyEnds: Int32Array;
  /** Each body's length in UTF-16 code units, as `length` of the JS string. */
  bodyLengths: Int32Array;
};

/** Where literals are written before their used part is copied out: kept, so a batch allocates once. */
let scratch = Buffer.alloc(0);

/** `values` as one array literal in UTF-8, and the byte offset after each element. */
function literalBytes(values: readonly string[]): { bytes: Buffer; ends: Int32Array } {
  const elements = new Array<string>(values.length);
  let chars = 2;
  for (let index = 0; index < values.length; index++) {
    elements[index] = quotedElement(values[index]!);
    chars += elements[index]!.length + 1;
  }
  // Three bytes at most per UTF-16 unit.
  if (scratch.length < chars * 3) scratch = Buffer.allocUnsafeSlow(chars * 3);
  const ends = new Int32Array(values.length);
  let at = scratch.write('{', 0, 'latin1');
  for (let index = 0; index < elements.length; index++) {
    if (index > 0) at += scratch.write(',', at, 'latin1');
    at += scratch.write(elements[index]!, at, 'utf8');
    ends[index] = at;
  }
  at += scratch.write('}', at, 'latin1');
  return { bytes: Buffer.from(scratch.subarray(0, at)), ends };
}

export function encodeSampleRows(rows: SampleRows): EncodedSampleRows {
  const bodies = literalBytes(rows.bodies);
  const bodyLengths = new Int32Array(rows.bodies.length);
  for (let index = 0; index < rows.bodies.length; index++) bodyLengths[index] = rows.bodies[index]!.length;
  return {
    count: rows.ids.length,
    columns: [
      literalBytes(rows.ids).bytes,
      literalBytes(rows.kinds).bytes,
      literalBytes(rows.days).bytes,
      literalBytes(rows.starts).bytes,
      literalBytes(rows.ends).bytes,
      bodies.bytes,
    ],
    days: rows.days,
    bodyEnds: bodies.ends,
    bodyLengths,
  };
}

// Samples as the columns they are stored in (mobile_samples), one array per column. Built where
// the samples are made: by an import's reader process (import-task.ts), so what crosses to the
// parent is six arrays of strings rather than thousands of sample objects to clone, and the
// parent hands the arrays to the store as they are; by an upload's job (sample-store.ts).
// Kept apart from samples-repo.ts so the reader loads no store code (but the array literal's quoting).
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
import { quotedElement } from '../../store/text-array.ts';
import { localDayOf } from './unify/shared.ts';

export type SampleRows = {
  ids: string[];
  kinds: string[];
  days: string[];
  /**
   * Start and end in milliseconds since the epoch, as decimal text: the store makes the instants
   * (samples-repo.ts). A number's text costs a fraction of an ISO date's, here and in PostgreSQL, which
   * parses an integer far faster than a timestamp (issue 44).
   */
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
    rows.starts.push(String(sample.startMs));
    rows.ends.push(String(sample.endMs));
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

const COMMA = 0x2c;
const LINE_FEED = 0x0a;

/** UTF-8 text written in place into a buffer that grows, its bytes copied out once, when taken. */
class GrowingText {
  private bytes = Buffer.allocUnsafeSlow(4096);
  length = 0;

  private reserve(more: number) {
    if (this.length + more <= this.bytes.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, this.length + more));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }

  write(text: string) {
    // Three bytes at most per UTF-16 unit.
    this.reserve(text.length * 3);
    this.length += this.bytes.write(text, this.length, 'utf8');
  }

  byte(value: number) {
    this.reserve(1);
    this.bytes[this.length++] = value;
  }

  /** The text so far, between `before` and `after` (bytes), in a buffer of its own; empties this. */
  take(before?: number, after?: number): Buffer {
    const extra = (before === undefined ? 0 : 1) + (after === undefined ? 0 : 1);
    const out = Buffer.allocUnsafeSlow(this.length + extra);
    let at = 0;
    if (before !== undefined) out[at++] = before;
    at += this.bytes.copy(out, at, 0, this.length);
    if (after !== undefined) out[at] = after;
    this.length = 0;
    return out;
  }
}

/**
 * Sample rows encoded as they are added, batch after batch, into buffers that are kept: an
 * import's reader adds what it read a few hundred elements at a time and takes one batch for
 * the parent every few thousand (import-task.ts), so nothing of a part waits for the batch as a
 * string. The parts added before a `take` must not share an id (the upsert may touch a row once).
 */
export class EncodedRowsWriter {
  private readonly literals = [0, 1, 2, 3, 4].map(() => new GrowingText());
  private readonly bodies = new GrowingText();
  private days: string[] = [];
  private bodyEnds: number[] = [];
  private bodyLengths: number[] = [];

  get count(): number {
    return this.days.length;
  }

  add(rows: SampleRows): void {
    const first = this.count === 0;
    const columns = [rows.ids, rows.kinds, rows.days, rows.starts, rows.ends];
    for (let column = 0; column < columns.length; column++) {
      const literal = this.literals[column]!;
      const values = columns[column]!;
      for (let index = 0; index < values.length; index++) {
        if (!first || index > 0) literal.byte(COMMA);
        literal.write(quotedElement(values[index]!));
      }
    }
    for (let index = 0; index < rows.bodies.length; index++) {
      const body = rows.bodies[index]!;
      // A line feed inside would split a body in two: not JSON.stringify's output.
      if (body.includes('\n')) throw new Error('a sample body holds a line feed');
      if (!first || index > 0) this.bodies.byte(LINE_FEED);
      this.bodies.write(body);
      this.bodyEnds.push(this.bodies.length);
      this.bodyLengths.push(body.length);
      this.days.push(rows.days[index]!);
    }
  }

  /** Everything added since the last `take`, encoded. */
  take(): EncodedSampleRows {
    const taken: EncodedSampleRows = {
      count: this.count,
      columns: [
        ...this.literals.map((literal) => literal.take(0x7b, 0x7d)), // { … }
        this.bodies.take(),
      ],
      days: this.days,
      bodyEnds: Int32Array.from(this.bodyEnds),
      bodyLengths: Int32Array.from(this.bodyLengths),
    };
    this.days = [];
    this.bodyEnds = [];
    this.bodyLengths = [];
    return taken;
  }
}

export function encodeSampleRows(rows: SampleRows): EncodedSampleRows {
  const writer = new EncodedRowsWriter();
  writer.add(rows);
  return writer.take();
}

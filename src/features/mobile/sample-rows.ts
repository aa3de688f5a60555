// Samples as the rows they are stored in (mobile_samples). Built where
// the samples are made: by an import's reader process (import-task.ts), so what crosses to the
// parent is the rows as COPY text rather than thousands of sample objects to clone, and the
// parent streams that text to the store as it is; by an upload's job (sample-store.ts).
// Kept apart from samples-repo.ts so the reader loads no store code.
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
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
 * PostgreSQL): one line per sample in the text format of PostgreSQL's COPY (id, kind, day, start,
 * end and body, tab-separated), UTF-8. It crosses between processes as bytes (a copy of memory, not
 * thousands of strings to rebuild) and goes to PostgreSQL as it is, streamed into a staging table
 * (samples-repo.ts), where a parameter was copied into node-postgres's Bind message by a buffer
 * that grows by copies: several megabytes of short-lived buffers a batch, which is what ran the
 * importing process's full collections while batches were stored. A body is its JSON text, which
 * never holds a raw tab, line feed or carriage return (JSON.stringify escapes every control
 * character); only its backslashes are doubled, as COPY reads a backslash as an escape. For the
 * rebuild (imported-days.ts): each sample's day, where its body begins and ends in the text, and
 * its body's length.
 */
export type EncodedSampleRows = {
  count: number;
  /** The rows in COPY's text format, one line each, UTF-8. */
  text: Buffer;
  days: string[];
  /** Byte offset in `text` where each sample's body begins. */
  bodyStarts: Int32Array;
  /** Byte offset in `text` after each sample's body (at its line feed). */
  bodyEnds: Int32Array;
  /** Each body's length in UTF-16 code units, as `length` of the JS string (before escaping). */
  bodyLengths: Int32Array;
};

/** The columns of a line, in order: the staging table's (samples-repo.ts). */
export const COPY_COLUMNS = ['sample_id', 'kind', 'local_day', 'start_ms', 'end_ms', 'body'] as const;

const LINE_FEED = 0x0a;
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_SPECIALS = /[\\\t\n\r]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A value as a field of COPY's text format: backslash, tab, line feed and carriage return escaped. */
export function copyField(value: string): string {
  return COPY_SPECIAL.test(value) ? value.replace(COPY_SPECIALS, (special) => COPY_ESCAPES[special]!) : value;
}

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

  /** The text so far in a buffer of its own; empties this. */
  take(): Buffer {
    const out = Buffer.allocUnsafeSlow(this.length);
    this.bytes.copy(out, 0, 0, this.length);
    this.length = 0;
    return out;
  }
}

/**
 * Sample rows encoded as they are added, batch after batch, into a buffer that is kept: an
 * import's reader adds what it read a few hundred elements at a time and takes one batch for
 * the parent every few thousand (import-task.ts), so nothing of a part waits for the batch as a
 * string. The parts added before a `take` must not share an id (the upsert may touch a row once).
 */
export class EncodedRowsWriter {
  private readonly text = new GrowingText();
  private days: string[] = [];
  private bodyStarts: number[] = [];
  private bodyEnds: number[] = [];
  private bodyLengths: number[] = [];

  get count(): number {
    return this.days.length;
  }

  add(rows: SampleRows): void {
    for (let index = 0; index < rows.bodies.length; index++) {
      const body = rows.bodies[index]!;
      // A raw line feed, tab or carriage return is not JSON.stringify's output.
      if (/[\t\n\r]/.test(body)) throw new Error('a sample body holds a raw control character');
      const day = rows.days[index]!;
      this.text.write(
        `${copyField(rows.ids[index]!)}\t${copyField(rows.kinds[index]!)}\t${copyField(day)}\t${rows.starts[index]!}\t${rows.ends[index]!}\t`,
      );
      this.bodyStarts.push(this.text.length);
      this.text.write(body.includes('\\') ? body.replaceAll('\\', '\\\\') : body);
      this.bodyEnds.push(this.text.length);
      this.text.byte(LINE_FEED);
      this.bodyLengths.push(body.length);
      this.days.push(day);
    }
  }

  /** Everything added since the last `take`, encoded. */
  take(): EncodedSampleRows {
    const taken: EncodedSampleRows = {
      count: this.count,
      text: this.text.take(),
      days: this.days,
      bodyStarts: Int32Array.from(this.bodyStarts),
      bodyEnds: Int32Array.from(this.bodyEnds),
      bodyLengths: Int32Array.from(this.bodyLengths),
    };
    this.days = [];
    this.bodyStarts = [];
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

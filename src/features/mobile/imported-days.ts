// The samples an import stored, by local day, kept aside so that the days the import changed are
// rebuilt from them afterwards instead of read back and parsed again (issue 28: the rebuild
// re-read and re-parsed every sample it had just written).
//
// What is kept may not be all a day holds: samples stored before (an earlier import, SDK uploads,
// a run this one resumes), a batch past the budget, a sample another writer changed since. So a
// day is built from what was kept only when the store's fingerprint of the day (how many samples,
// their bodies' total length) is the one of what is kept; any other day is read from the store.
// What is kept is each sample's body as the reader sent it (its JSON text, UTF-8, out of the rows'
// COPY text: sample-rows.ts), written to a file of the import's own, unlinked as soon as it is
// opened (nothing is left behind by a crash; the descriptor holds it until `close`); a day is its
// runs of bodies in that file, read and parsed in one JSON.parse when it is rebuilt.
//
// A file rather than buffers in this process (issue 44): the file's pages are the kernel's page
// cache, not this process's memory, while the buffers were up to 12 MB of the importing process's
// resident set during the batches, beside its reader and its database, where an import's peak is.

import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { newUuid } from '../../core/ids.ts';
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
import type { Db } from '../../store/db.ts';
import * as samplesRepo from './samples-repo.ts';
import type { EncodedSampleRows } from './sample-rows.ts';
import { type RunSamples, runSamplesOf } from './run-samples.ts';

type KeptDay = {
  /**
   * Where the day's bodies are in the file: [start, end) byte ranges, each one body or a run of
   * the day's bodies that followed each other in a batch, every body followed by a comma.
   */
  ranges: number[];
  count: number;
  /** The bodies' total length (UTF-16 code units): the store's fingerprint of the day. */
  length: number;
  /**
   * When the day's samples start, earliest and latest (ms): which days a workout's samples can
   * come from (rebuild.ts). Numbers widened in place: no object per sample while batches are stored.
   */
  firstStart: number;
  lastStart: number;
};

const COMMA = 0x2c;

const BACKSLASH = 0x5c;
const TAB = 0x09;
const MINUS = 0x2d;

/**
 * A row's start_ms out of COPY text (sample-rows.ts: `…\t<start_ms>\t<end_ms>\t<body>`), read
 * backwards from where its body begins: two integers, no escapes.
 */
function startMsBefore(text: Buffer, bodyStart: number): number {
  let at = bodyStart - 2;
  while (text[at] !== TAB) at--;
  const end = at;
  at--;
  while (text[at] !== TAB) at--;
  let value = 0;
  let index = at + 1;
  const negative = text[index] === MINUS;
  if (negative) index++;
  for (; index < end; index++) value = value * 10 + (text[index]! - 0x30);
  return negative ? -value : value;
}

/**
 * Copies a body out of COPY text (sample-rows.ts) as its JSON: the only escape a body's text has
 * there is a doubled backslash, undone here. Returns where the copy ends in `target`.
 */
function copyUnescaped(source: Buffer, from: number, to: number, target: Buffer, at: number): number {
  // Searched within the body alone (a search of the whole text would pass every later row).
  const body = source.subarray(from, to);
  let escape = body.indexOf(BACKSLASH);
  if (escape === -1) return at + body.copy(target, at);
  let start = 0;
  while (escape !== -1) {
    // Up to and with the first backslash of the pair; the second is skipped.
    at += body.copy(target, at, start, escape + 1);
    start = escape + 2;
    escape = body.indexOf(BACKSLASH, start);
  }
  return at + body.copy(target, at, start);
}

export class ImportedDays {
  /**
   * By local day, what was kept of it, in the order stored. No ids: a sample stored twice (a
   * later batch repeating an id) makes the day's count differ from the store's, so that day is
   * read back instead, as any other mismatch is.
   */
  private readonly days = new Map<string, KeptDay>();
  private readonly fd: number;
  private readonly budget: number;
  /** Bytes written to the file. */
  private written = 0;
  /** Past the budget (or a failed write): nothing more is kept. */
  private full = false;
  /** A batch's bodies, unescaped, before they are written: reused from batch to batch. */
  private scratch = Buffer.allocUnsafeSlow(0);

  /**
   * Keeps what is added in a file made in `dir` (and unlinked at once); `budget`: bytes written to
   * it at most (a batch past it, and every later one, is not kept). `close` when done.
   */
  constructor(dir: string, budget: number) {
    const path = join(dir, `${newUuid()}.days`);
    this.fd = openSync(path, 'wx+', 0o600);
    unlinkSync(path);
    this.budget = budget;
  }

  /** Keeps a stored batch, unless that would pass the budget. */
  add(rows: EncodedSampleRows): void {
    if (this.full) return;
    const text = rows.text;
    // Unescaped, a batch's bodies and their commas take at most the rows' text.
    if (this.written + text.length > this.budget) {
      this.full = true;
      return;
    }
    if (this.scratch.length < text.length) this.scratch = Buffer.allocUnsafeSlow(text.length);
    const scratch = this.scratch;
    const ends = new Int32Array(rows.count);
    let used = 0;
    for (let index = 0; index < rows.count; index++) {
      used = copyUnescaped(text, rows.bodyStarts[index]!, rows.bodyEnds[index]!, scratch, used);
      scratch[used++] = COMMA;
      ends[index] = used;
    }
    try {
      for (let done = 0; done < used;)
        done += writeSync(this.fd, scratch, done, used - done, this.written + done);
    } catch {
      // The kept days are a saving only: a day without this batch is read from the store.
      this.full = true;
      return;
    }
    let previousDay: string | undefined;
    for (let index = 0; index < rows.count; index++) {
      const day = rows.days[index]!;
      const start = this.written + (index === 0 ? 0 : ends[index - 1]!);
      const end = this.written + ends[index]!;
      let kept = this.days.get(day);
      if (!kept) {
        kept = { ranges: [], count: 0, length: 0, firstStart: Infinity, lastStart: -Infinity };
        this.days.set(day, kept);
      }
      // The sample before was the same day's: its range goes on to this body's end.
      if (day === previousDay) kept.ranges[kept.ranges.length - 1] = end;
      else kept.ranges.push(start, end);
      previousDay = day;
      kept.count++;
      kept.length += rows.bodyLengths[index]!;
      const startMs = startMsBefore(text, rows.bodyStarts[index]!);
      if (startMs < kept.firstStart) kept.firstStart = startMs;
      if (startMs > kept.lastStart) kept.lastStart = startMs;
    }
    this.written += used;
  }

  /** The file's descriptor goes (and with it the file). */
  close(): void {
    closeSync(this.fd);
  }

  /** A kept day's bodies as the JSON array they make, read from the file. */
  private read(kept: KeptDay): MobileSample[] {
    let size = 1;
    for (let index = 0; index < kept.ranges.length; index += 2)
      size += kept.ranges[index + 1]! - kept.ranges[index]!;
    const bytes = Buffer.allocUnsafe(size);
    bytes[0] = 0x5b;
    let at = 1;
    for (let index = 0; index < kept.ranges.length; index += 2) {
      const start = kept.ranges[index]!;
      const length = kept.ranges[index + 1]! - start;
      for (let done = 0; done < length;) {
        const read = readSync(this.fd, bytes, at + done, length - done, start + done);
        if (read === 0) throw new Error("the import's kept days file ended early");
        done += read;
      }
      at += length;
    }
    // The last body's comma closes the array.
    bytes[size - 1] = 0x5d;
    return JSON.parse(bytes.toString('utf8')) as MobileSample[];
  }

  /** Whether what is kept for `day` is what the store holds (by its fingerprint; none = empty). */
  private matches(day: string, stored: { count: number; length: number } | undefined): boolean {
    const kept = this.days.get(day);
    if (!stored) return !kept || kept.count === 0;
    return kept !== undefined && kept.count === stored.count && kept.length === stored.length;
  }

  /**
   * The samples stored under local days [fromDay, toDay], a day at a time: a day whose kept
   * samples match the store is parsed from the file when asked for (each time: the caller keeps
   * what it needs), the others are read from the store now.
   */
  async runSamples(trx: Db, userId: string, fromDay: string, toDay: string): Promise<RunSamples> {
    const stored = await samplesRepo.dayFingerprints(trx, userId, fromDay, toDay);
    const kept = new Map<string, KeptDay>();
    const unread: string[] = [];
    for (const day of new Set([...stored.keys(), ...this.days.keys()])) {
      if (day < fromDay || day > toDay) continue;
      if (!this.matches(day, stored.get(day))) {
        if (stored.has(day)) unread.push(day);
        continue;
      }
      const days = this.days.get(day);
      if (days && days.count > 0) kept.set(day, days);
    }
    // By the day each is stored under, as the kept ones are (sample-rows.ts: its local day).
    const read = runSamplesOf(await samplesRepo.samplesByDay(trx, userId, { days: unread }));
    return {
      days: [...new Set([...kept.keys(), ...read.days])].sort(),
      samplesOf: (day) => {
        const fromFile = kept.get(day);
        if (!fromFile) return read.samplesOf(day);
        const samples = this.read(fromFile);
        for (const sample of read.samplesOf(day)) samples.push(sample);
        return samples;
      },
      startsOf: (day) => {
        const fromFile = kept.get(day);
        const fromStore = read.startsOf(day);
        if (!fromFile) return fromStore;
        return {
          min: Math.min(fromFile.firstStart, fromStore?.min ?? Infinity),
          max: Math.max(fromFile.lastStart, fromStore?.max ?? -Infinity),
        };
      },
    };
  }

  /** Every sample of `runSamples`, day after day. */
  async samplesOnDays(trx: Db, userId: string, fromDay: string, toDay: string): Promise<MobileSample[]> {
    const run = await this.runSamples(trx, userId, fromDay, toDay);
    return run.days.flatMap((day) => run.samplesOf(day));
  }
}

// The samples an import stored, by local day, kept in memory (within a budget) so that the days
// the import changed are rebuilt from them afterwards instead of read back and parsed again
// (issue 28: the rebuild re-read and re-parsed every sample it had just written).
//
// What is kept may not be all a day holds: samples stored before (an earlier import, SDK uploads,
// a run this one resumes), a day evicted over the budget, a sample another writer changed since.
// So a day is built from memory only when the store's fingerprint of the day (how many samples,
// their bodies' total length) is the one of what is kept; any other day is read from the store.
// What is kept is each sample's body as the reader sent it (its JSON text, UTF-8, out of the rows'
// COPY text: sample-rows.ts),
// copied into one growing buffer per day; a day is parsed when it is rebuilt, in one JSON.parse. Bytes rather than strings: no object per sample, half the
// size of a string holding any character past Latin-1, and nothing else of the batch kept alive.
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
import type { Db } from '../../store/db.ts';
import * as samplesRepo from './samples-repo.ts';
import type { EncodedSampleRows } from './sample-rows.ts';

type KeptDay = {
  /** Each sample's JSON text, comma-separated: `{"id":…},{…}`. */
  bytes: Buffer;
  used: number;
  count: number;
  /** The bodies' total length (UTF-16 code units): the store's fingerprint of the day. */
  length: number;
};

const BACKSLASH = 0x5c;

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
   * By local day, what was stored under it, in the order stored. No ids: a sample stored twice (a
   * later batch repeating an id) makes the day's count differ from the store's, so that day is
   * read back instead, as any other mismatch is.
   */
  private readonly days = new Map<string, KeptDay>();
  private held = 0;
  private readonly budget: number;

  /** `budget`: bytes kept at most (the days' buffers, as allocated). */
  constructor(budget: number) {
    this.budget = budget;
  }

  /** Keeps a stored batch; past the budget the days kept longest go first. */
  add(rows: EncodedSampleRows): void {
    const text = rows.text;
    for (let index = 0; index < rows.count; index++) {
      const day = rows.days[index]!;
      const from = rows.bodyStarts[index]!;
      const to = rows.bodyEnds[index]!;
      let kept = this.days.get(day);
      if (!kept) {
        kept = {
          bytes: Buffer.allocUnsafeSlow(Math.max(256, (to - from) * 4)),
          used: 0,
          count: 0,
          length: 0,
        };
        this.days.set(day, kept);
        this.held += kept.bytes.length;
      }
      const needed = kept.used + 1 + (to - from);
      if (needed > kept.bytes.length) {
        const grown = Buffer.allocUnsafeSlow(Math.max(needed, kept.bytes.length * 2));
        kept.bytes.copy(grown, 0, 0, kept.used);
        this.held += grown.length - kept.bytes.length;
        kept.bytes = grown;
      }
      if (kept.count > 0) kept.bytes[kept.used++] = 0x2c;
      kept.used = copyUnescaped(text, from, to, kept.bytes, kept.used);
      kept.count++;
      kept.length += rows.bodyLengths[index]!;
    }
    for (const [day, kept] of this.days) {
      if (this.held <= this.budget) break;
      this.held -= kept.bytes.length;
      this.days.delete(day);
    }
  }

  /** Whether what is kept for `day` is what the store holds (by its fingerprint; none = empty). */
  private matches(day: string, stored: { count: number; length: number } | undefined): boolean {
    const kept = this.days.get(day);
    if (!stored) return !kept || kept.count === 0;
    return kept !== undefined && kept.count === stored.count && kept.length === stored.length;
  }

  /** The samples stored under local days [fromDay, toDay]: from memory where it matches, the rest read. */
  async samplesOnDays(trx: Db, userId: string, fromDay: string, toDay: string): Promise<MobileSample[]> {
    const stored = await samplesRepo.dayFingerprints(trx, userId, fromDay, toDay);
    const samples: MobileSample[] = [];
    const unread: string[] = [];
    for (const day of new Set([...stored.keys(), ...this.days.keys()])) {
      if (day < fromDay || day > toDay) continue;
      if (!this.matches(day, stored.get(day))) {
        if (stored.has(day)) unread.push(day);
        continue;
      }
      const kept = this.days.get(day);
      if (kept)
        for (const sample of JSON.parse(`[${kept.bytes.toString('utf8', 0, kept.used)}]`) as MobileSample[])
          samples.push(sample);
    }
    for (const sample of await samplesRepo.samplesOnDays(trx, userId, { days: unread })) samples.push(sample);
    return samples;
  }
}

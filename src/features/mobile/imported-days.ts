// The samples an import stored, by local day, kept in memory (within a budget) so that the days
// the import changed are rebuilt from them afterwards instead of read back and parsed again
// (issue 28: the rebuild re-read and re-parsed every sample it had just written).
//
// What is kept may not be all a day holds: samples stored before (an earlier import, SDK uploads,
// a run this one resumes), a day evicted over the budget, a sample another writer changed since.
// So a day is built from memory only when the store's fingerprint of the day (how many samples,
// their bodies' total length) is the one of what is kept; any other day is read from the store.
// What is kept is each sample's JSON as stored, parsed when its day is rebuilt (a day's at once): a
// string weighs half what the parsed sample does, and the import's parent never builds the samples
// otherwise.
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
import type { Db } from '../../store/db.ts';
import * as repo from './repo.ts';
import type { SampleRows } from './sample-rows.ts';

/**
 * What one kept sample costs beyond its JSON's characters: the string's header and its slot in the
 * day's list (V8, 64-bit). Counted so that the budget bounds the memory kept, not only the text.
 */
const OVERHEAD_PER_SAMPLE = 24;

export class ImportedDays {
  /**
   * By local day: the JSON of every sample stored under it, in the order stored, and their total
   * length. No ids: a sample stored twice (a later batch repeating an id) makes the day's count
   * differ from the store's, so that day is read back instead, as any other mismatch is.
   */
  private readonly days = new Map<string, { bodies: string[]; length: number }>();
  private held = 0;
  private readonly budget: number;

  /** `budget`: characters kept at most (sample JSON, plus a fixed overhead per sample). */
  constructor(budget: number) {
    this.budget = budget;
  }

  /** Keeps a stored batch; past the budget the days kept longest go first. */
  add(rows: SampleRows): void {
    for (let index = 0; index < rows.bodies.length; index++) {
      const day = rows.days[index]!;
      let kept = this.days.get(day);
      if (!kept) {
        kept = { bodies: [], length: 0 };
        this.days.set(day, kept);
      }
      const body = rows.bodies[index]!;
      kept.bodies.push(body);
      kept.length += body.length;
      this.held += body.length + OVERHEAD_PER_SAMPLE;
    }
    for (const [day, kept] of this.days) {
      if (this.held <= this.budget) break;
      this.held -= kept.length + kept.bodies.length * OVERHEAD_PER_SAMPLE;
      this.days.delete(day);
    }
  }

  /** Whether what is kept for `day` is what the store holds (by its fingerprint; none = empty). */
  private matches(day: string, stored: { count: number; length: number } | undefined): boolean {
    const kept = this.days.get(day);
    if (!stored) return !kept || kept.bodies.length === 0;
    return kept !== undefined && kept.bodies.length === stored.count && kept.length === stored.length;
  }

  /** The samples stored under local days [fromDay, toDay]: from memory where it matches, the rest read. */
  async samplesOnDays(trx: Db, userId: string, fromDay: string, toDay: string): Promise<MobileSample[]> {
    const stored = await repo.dayFingerprints(trx, userId, fromDay, toDay);
    const samples: MobileSample[] = [];
    const unread: string[] = [];
    for (const day of new Set([...stored.keys(), ...this.days.keys()])) {
      if (day < fromDay || day > toDay) continue;
      if (!this.matches(day, stored.get(day))) {
        if (stored.has(day)) unread.push(day);
        continue;
      }
      const kept = this.days.get(day);
      // One parse of the day's samples as a JSON array: each body is a JSON object.
      if (kept)
        for (const sample of JSON.parse(`[${kept.bodies.join(',')}]`) as MobileSample[]) samples.push(sample);
    }
    for (const sample of await repo.samplesOfDays(trx, userId, unread)) samples.push(sample);
    return samples;
  }
}

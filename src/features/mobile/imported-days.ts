// The samples an import stored, by local day, kept in memory (within a budget) so that the days
// the import changed are rebuilt from them afterwards instead of read back and parsed again
// (issue 28: the rebuild re-read and re-parsed every sample it had just written).
//
// What is kept may not be all a day holds: samples stored before (an earlier import, SDK uploads,
// a run this one resumes), a day evicted over the budget, a sample another writer changed since.
// So a day is built from memory only when the store's fingerprint of the day (how many samples,
// their bodies' total length) is the one of what is kept; any other day is read from the store.
// What is kept is each sample's JSON as stored, parsed when its day is rebuilt: a string weighs
// half what the parsed sample does, and the import's parent never builds the samples otherwise.
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
import type { Db } from '../../store/db.ts';
import * as repo from './repo.ts';
import type { SampleRows } from './sample-rows.ts';

export class ImportedDays {
  /** By local day, by sample id: the sample's JSON. */
  private readonly days = new Map<string, Map<string, string>>();
  private held = 0;
  private readonly budget: number;

  /** `budget`: body characters kept at most. */
  constructor(budget: number) {
    this.budget = budget;
  }

  /** Keeps a stored batch; past the budget the days kept longest go first. */
  add(rows: SampleRows): void {
    for (let index = 0; index < rows.ids.length; index++) {
      const day = rows.days[index]!;
      let kept = this.days.get(day);
      if (!kept) {
        kept = new Map();
        this.days.set(day, kept);
      }
      const body = rows.bodies[index]!;
      this.held += body.length - (kept.get(rows.ids[index]!)?.length ?? 0);
      kept.set(rows.ids[index]!, body);
    }
    for (const [day, kept] of this.days) {
      if (this.held <= this.budget) break;
      for (const body of kept.values()) this.held -= body.length;
      this.days.delete(day);
    }
  }

  /** Whether what is kept for `day` is what the store holds (by its fingerprint; none = empty). */
  private matches(day: string, stored: { count: number; length: number } | undefined): boolean {
    const kept = this.days.get(day);
    if (!stored) return !kept || kept.size === 0;
    if (!kept || kept.size !== stored.count) return false;
    let length = 0;
    for (const body of kept.values()) length += body.length;
    return length === stored.length;
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
      for (const body of this.days.get(day)?.values() ?? []) samples.push(JSON.parse(body) as MobileSample);
    }
    for (const sample of await repo.samplesOfDays(trx, userId, unread)) samples.push(sample);
    return samples;
  }
}

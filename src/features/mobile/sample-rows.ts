// Samples as the columns they are stored in (mobile_samples), one array per column. Built where
// the samples are made: by an import's reader process (import-task.ts), so what crosses to the
// parent is six arrays of strings rather than thousands of sample objects to clone, and the
// parent hands the arrays to the store as they are; by an upload's job (sample-store.ts).
// Kept apart from repo.ts so the reader loads no store code.
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
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

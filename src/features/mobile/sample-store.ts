// Where uploads and imports meet: a batch of mobile samples (and deletions) stored for a user, and
// the days it changed marked dirty for the rebuild (rebuild.ts).
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
import type { Db } from '../../store/db.ts';
import * as repo from './repo.ts';

/** Stores a batch's samples and deletions; returns the days they changed (also marked dirty). */
export async function storeSamples(
  trx: Db,
  userId: string,
  samples: readonly MobileSample[],
  deletions: readonly string[],
) {
  const changed = await repo.upsertSamples(trx, userId, samples);
  for (const day of await repo.deleteSamples(trx, userId, deletions)) changed.add(day);
  await repo.markDirty(trx, userId, changed);
  return changed;
}

// Where uploads and imports meet: a batch of mobile samples (and deletions) stored for a user, and
// the days it changed marked dirty for the rebuild (rebuild.ts).
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
import type { Db } from '../../store/db.ts';
import * as dirtyDaysRepo from './dirty-days-repo.ts';
import * as samplesRepo from './samples-repo.ts';
import { encodeSampleRows, sampleRows } from './sample-rows.ts';

/** Stores a batch's samples and deletions; returns the days they changed (also marked dirty). */
export async function storeSamples(
  trx: Db,
  userId: string,
  samples: readonly MobileSample[],
  deletions: readonly string[],
) {
  // The upsert marks the days it changed itself (one statement); deletions are marked here.
  const changed = await samplesRepo.upsertSamples(trx, userId, encodeSampleRows(sampleRows(samples)));
  const deleted = await samplesRepo.deleteSamples(trx, userId, deletions);
  await dirtyDaysRepo.markDirty(trx, userId, deleted);
  for (const day of deleted) changed.add(day);
  return changed;
}

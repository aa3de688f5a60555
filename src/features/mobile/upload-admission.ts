// Whether an SDK connection may upload now, decided before its body is read. The upload token
// lives on the user's phone: whoever holds it is held to a rate (MOBILE_UPLOAD_RATE) and to a
// number of uploads waiting for their normalization job (MOBILE_UPLOAD_PENDING_MAX), so one phone
// cannot fill the queue for everyone. Past either: 429 with Retry-After.
import type { Clock } from '../../core/clock.ts';
import type { Db } from '../../store/db.ts';
import { createRequestWindows, tooManyRequests } from '../limits/windows.ts';
import * as repo from './repo.ts';
import type { MobileSettings } from './settings.ts';

/** A normalization job takes seconds: when to try again with too many uploads pending. */
const PENDING_RETRY_SECONDS = 10;

/**
 * Whether a developer may start another export import now (MOBILE_IMPORT_RATE), decided before the
 * export is read: one developer cannot fill the spool or the import queue for everyone.
 */
export function createImportAdmission(deps: { db: Db; clock: Clock; settings: MobileSettings }) {
  const windows = createRequestWindows({ db: deps.db, clock: deps.clock });
  const rate = deps.settings.importRate;
  return (developerId: string): Promise<void> =>
    windows.enforce(
      `import:${developerId}`,
      rate,
      `more than ${rate.limit} imports in ${rate.windowSeconds} s from this developer (MOBILE_IMPORT_RATE)`,
    );
}

export function createUploadAdmission(deps: { db: Db; clock: Clock; settings: MobileSettings }) {
  const { db, settings } = deps;
  const windows = createRequestWindows({ db, clock: deps.clock });
  return async function admitUpload(connection: { user_id: string }): Promise<void> {
    const pending = await repo.countPendingUploads(db, connection.user_id);
    if (pending >= settings.uploadPendingMax)
      throw tooManyRequests(
        `${pending} uploads of this connection are still being normalized (MOBILE_UPLOAD_PENDING_MAX)`,
        PENDING_RETRY_SECONDS,
      );
    const rate = settings.uploadRate;
    const verdict = await windows.take(`sdk-upload:${connection.user_id}`, rate);
    if (!verdict.allowed)
      throw tooManyRequests(
        `more than ${rate.limit} uploads in ${rate.windowSeconds} s from this connection (MOBILE_UPLOAD_RATE)`,
        verdict.retryAfterSeconds,
      );
  };
}

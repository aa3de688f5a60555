// Spooled export files (`DATA_DIR/imports/<import id>.upload`) nothing will read any more: an
// upload a crash or kill -9 interrupted (no import row was ever written), or an import that ended
// without removing its file. Swept by the `mobile.sweep-spool` job, hourly and at start-up.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { Db } from '../../store/db.ts';
import * as importsRepo from './imports-repo.ts';

const SPOOL_FILE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.upload$/;
/** How long after its last write a spooled file may still be arriving (a slow upload). */
export const SPOOL_GRACE_MS = 60 * 60_000;

/**
 * Removes the spooled files of `dir` no import will read; returns how many. A file written to
 * within SPOOL_GRACE_MS stays, as does the file of an import still queued or running.
 */
export async function sweepSpool(deps: { db: Db; clock: Clock; log: Logger; dir: string }): Promise<number> {
  const now = deps.clock.now().getTime();
  let removed = 0;
  for (const name of await readdir(deps.dir)) {
    const match = SPOOL_FILE.exec(name);
    if (!match) continue;
    const path = join(deps.dir, name);
    const modified = await stat(path).then(
      (info) => info.mtimeMs,
      () => null,
    );
    if (modified === null || now - modified < SPOOL_GRACE_MS) continue;
    const row = await importsRepo.findImport(deps.db, match[1]!);
    if (row && (row.status === 'queued' || row.status === 'running')) continue;
    await rm(path, { force: true });
    removed++;
  }
  if (removed > 0) deps.log.info({ removed }, 'orphaned spooled export files removed');
  return removed;
}

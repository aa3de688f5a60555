import type { PGlite } from '@electric-sql/pglite';
import { openStore, type Store } from './db.ts';

/**
 * Backups of embedded storage: a point-in-time copy of PGlite's data directory (a gzipped tar,
 * PGlite's own format), taken inside the process that owns it while it keeps serving.
 */

/**
 * The store's files as of now. PGlite is one connection, and every statement and transaction
 * holds its transaction lock (Kysely's from BEGIN to COMMIT, see pglite-dialect.ts): inside a
 * transaction of our own nobody else's is open, the checkpoint writes every committed change into
 * the data files, and the copy is read with nothing writing. Requests and jobs wait for the copy
 * (seconds for a laptop's store), they do not fail.
 */
export async function snapshotEmbeddedStore(pglite: PGlite): Promise<Uint8Array> {
  return pglite.transaction(async (tx) => {
    await tx.exec('CHECKPOINT');
    // The dump takes the query lock only, which the transaction does not hold between statements.
    const tarball = await pglite.dumpDataDir('gzip');
    return new Uint8Array(await tarball.arrayBuffer());
  });
}

/**
 * A store created in `dataDir` from a snapshot. PGlite refuses a directory that already holds a
 * database ("Database already exists"); the caller moves any old one aside first.
 */
export async function openRestoredStore(dataDir: string, snapshot: Uint8Array): Promise<Store> {
  return openStore({
    databaseUrl: undefined,
    dataDir,
    loadDataDir: new Blob([snapshot as Uint8Array<ArrayBuffer>]),
  });
}

// Storage of mobile connections and their uploads. Every function takes the database or
// transaction it runs in. Samples are in samples-repo.ts, the days to rebuild in dirty-days-repo.ts,
// imports in imports-repo.ts.
import type { Db } from '../../store/db.ts';
import { statusAndDeveloperOf } from '../connections/repo.ts';

export async function insertConnection(
  db: Db,
  row: { userId: string; tokenHash: string; platform: string; device: unknown; now: Date },
): Promise<void> {
  await db
    .insertInto('mobile_connections')
    .values({
      user_id: row.userId,
      upload_token_hash: row.tokenHash,
      platform: row.platform,
      device: row.device === undefined || row.device === null ? null : JSON.stringify(row.device),
      created_at: row.now,
    })
    .execute();
}

export async function findConnectionByToken(db: Db, tokenHash: string) {
  const row = await db
    .selectFrom('mobile_connections')
    .select((eb) => [
      'mobile_connections.user_id',
      'mobile_connections.platform',
      ...statusAndDeveloperOf(eb.ref('mobile_connections.user_id')),
    ])
    .where('mobile_connections.upload_token_hash', '=', tokenHash)
    .executeTakeFirst();
  // The user's row goes with its connections (a foreign key), so both columns are there.
  return row && row.status !== null && row.developer_id !== null
    ? { ...row, status: row.status, developer_id: row.developer_id }
    : undefined;
}

export async function insertUpload(db: Db, row: { id: string; userId: string; body: string; now: Date }) {
  await db
    .insertInto('mobile_uploads')
    .values({ id: row.id, user_id: row.userId, body: row.body, received_at: row.now })
    .execute();
}

export async function findUpload(db: Db, id: string) {
  return db.selectFrom('mobile_uploads').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Uploads of a user still waiting for their normalization job. */
export async function countPendingUploads(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('mobile_uploads')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function deleteUpload(db: Db, id: string) {
  await db.deleteFrom('mobile_uploads').where('id', '=', id).execute();
}

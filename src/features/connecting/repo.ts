import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { AuthSessionsTable } from './tables.ts';

export type AuthSessionRow = Selectable<AuthSessionsTable>;

export async function insertAuthSession(db: Db, row: Insertable<AuthSessionsTable>): Promise<void> {
  await db.insertInto('auth_sessions').values(row).execute();
}

export async function findAuthSessionByState(db: Db, stateHash: string): Promise<AuthSessionRow | undefined> {
  return db.selectFrom('auth_sessions').selectAll().where('state_hash', '=', stateHash).executeTakeFirst();
}

/**
 * Marks the session used and returns it, or nothing if it was already used: the one place a
 * `state` is spent, atomic, so two racing callbacks cannot both complete.
 */
export async function consumeAuthSession(db: Db, id: string, now: Date): Promise<AuthSessionRow | undefined> {
  return db
    .updateTable('auth_sessions')
    .set({ consumed_at: now })
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Gives a spent `state` back (the session as it was claimed: `consumed_at` still the claim's),
 * for a flow whose work failed on the database before it finished. The caller checks that its
 * connection is still pending, so a flow that did end is never reopened. Returns whether it was.
 */
export async function releaseAuthSession(db: Db, session: AuthSessionRow): Promise<boolean> {
  if (!session.consumed_at) return false;
  const result = await db
    .updateTable('auth_sessions')
    .set({ consumed_at: null })
    .where('id', '=', session.id)
    .where('consumed_at', '=', session.consumed_at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The newest OAuth attempt started from a widget session (whose user the next attempt may reuse). */
export async function latestAuthSessionOfWidget(
  db: Db,
  widgetSessionId: string,
): Promise<AuthSessionRow | undefined> {
  return db
    .selectFrom('auth_sessions')
    .selectAll()
    .where('widget_session_id', '=', widgetSessionId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Withdraws a user's attempts nobody came back from: their `state` stops working and their expiry
 * timers find nothing to fail (the user goes on with a newer attempt).
 */
export async function deleteOpenAuthSessions(db: Db, userId: string): Promise<number> {
  const result = await db
    .deleteFrom('auth_sessions')
    .where('user_id', '=', userId)
    .where('consumed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function findAuthSession(db: Db, id: string): Promise<AuthSessionRow | undefined> {
  return db.selectFrom('auth_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertSdkToken(
  db: Db,
  row: { token_hash: string; developer_id: string; reference_id: string | null; expires_at: Date },
): Promise<void> {
  await db
    .insertInto('sdk_auth_tokens')
    .values({ ...row, used_at: null })
    .execute();
}

/** Spends an SDK token once; returns its developer and bound reference id when it was live. */
export async function consumeSdkToken(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<{ developer_id: string; reference_id: string | null } | undefined> {
  return db
    .updateTable('sdk_auth_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['developer_id', 'reference_id'])
    .executeTakeFirst();
}

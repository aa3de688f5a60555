import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { AuthSessionsTable } from '../../store/tables/connections.ts';

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

export async function findAuthSession(db: Db, id: string): Promise<AuthSessionRow | undefined> {
  return db.selectFrom('auth_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export type SealedTokens = {
  access_token: string;
  refresh_token: string | null;
  expires_at: Date | null;
  scopes: string | null;
  provider_user_id: string | null;
};

export async function saveProviderTokens(
  db: Db,
  userId: string,
  tokens: SealedTokens,
  now: Date,
): Promise<void> {
  await db
    .insertInto('provider_tokens')
    .values({ user_id: userId, ...tokens, updated_at: now })
    .onConflict((conflict) => conflict.column('user_id').doUpdateSet({ ...tokens, updated_at: now }))
    .execute();
}

export async function readProviderTokens(db: Db, userId: string): Promise<SealedTokens | undefined> {
  return db
    .selectFrom('provider_tokens')
    .select(['access_token', 'refresh_token', 'expires_at', 'scopes', 'provider_user_id'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export async function deleteProviderTokens(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('provider_tokens').where('user_id', '=', userId).execute();
}

export async function insertSdkToken(
  db: Db,
  row: { token_hash: string; developer_id: string; expires_at: Date },
): Promise<void> {
  await db
    .insertInto('sdk_auth_tokens')
    .values({ ...row, used_at: null })
    .execute();
}

/** Spends an SDK token once; returns its developer when it was live. */
export async function consumeSdkToken(db: Db, tokenHash: string, now: Date): Promise<string | undefined> {
  const row = await db
    .updateTable('sdk_auth_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('developer_id')
    .executeTakeFirst();
  return row?.developer_id;
}

// The one place `provider_tokens` is read and written: the connection flow stores the first grant,
// the token manager (tokens.ts) rotates it, deauthentication deletes it. Values are sealed.
import type { Db } from '../store/db.ts';

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

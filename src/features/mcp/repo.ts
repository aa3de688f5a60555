import type { Db } from '../../store/db.ts';
import type { McpTokensTable } from './tables.ts';

export async function insertToken(db: Db, row: McpTokensTable): Promise<void> {
  await db.insertInto('mcp_tokens').values(row).execute();
}

export async function findTokenByHash(db: Db, tokenHash: string): Promise<McpTokensTable | undefined> {
  return db.selectFrom('mcp_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Revokes one of the developer's tokens; false when it has none by that id (or it was revoked). */
export async function revokeToken(db: Db, developerId: string, id: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('mcp_tokens')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('developer_id', '=', developerId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Drops tokens that expired or were revoked before `before` (they can never be used again). */
export async function pruneTokens(db: Db, before: Date): Promise<void> {
  await db
    .deleteFrom('mcp_tokens')
    .where((eb) => eb.or([eb('expires_at', '<', before), eb('revoked_at', '<', before)]))
    .execute();
}

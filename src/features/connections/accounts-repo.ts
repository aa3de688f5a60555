// Connections by provider account (the provider's own id for the account): which accounts are
// connected, by whom, and since when, across developers where a provider event names only the
// account.
import type { Db } from '../../store/db.ts';
import type { ConnectionRow } from './repo.ts';

/** Which of these provider account ids have an active connection to that provider (any developer). */
export async function findActiveAccounts(
  db: Db,
  provider: string,
  providerUserIds: readonly string[],
): Promise<Set<string>> {
  if (providerUserIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('connections')
    .select('provider_user_id')
    .where('provider', '=', provider)
    .where('provider_user_id', 'in', [...new Set(providerUserIds)])
    .where('status', '=', 'active')
    .execute();
  return new Set(rows.flatMap((row) => (row.provider_user_id ? [row.provider_user_id] : [])));
}

/** Other users of the same developer connected to the same provider account (a reconnection). */
export async function findConnectionsWithAccount(
  db: Db,
  input: { developerId: string; provider: string; providerUserId: string; exceptUserId: string },
): Promise<ConnectionRow[]> {
  return db
    .selectFrom('connections')
    .selectAll()
    .where('developer_id', '=', input.developerId)
    .where('provider', '=', input.provider)
    .where('provider_user_id', '=', input.providerUserId)
    .where('id', '!=', input.exceptUserId)
    .execute();
}

/** Every user (any developer, any status) connected to this provider account. */
export async function findUsersByAccount(
  db: Db,
  provider: string,
  providerUserId: string,
): Promise<ConnectionRow[]> {
  return db
    .selectFrom('connections')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_user_id', '=', providerUserId)
    .execute();
}

/** When each of these provider accounts was first connected (any developer, any status). */
export async function firstConnectedAt(
  db: Db,
  provider: string,
  providerUserIds: readonly string[],
): Promise<Map<string, Date>> {
  if (providerUserIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('connections')
    .select(['provider_user_id', 'created_at'])
    .where('provider', '=', provider)
    .where('provider_user_id', 'in', [...new Set(providerUserIds)])
    .execute();
  const since = new Map<string, Date>();
  for (const row of rows) {
    if (!row.provider_user_id) continue;
    const known = since.get(row.provider_user_id);
    if (!known || row.created_at < known) since.set(row.provider_user_id, row.created_at);
  }
  return since;
}

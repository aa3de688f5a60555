// Lists and counts of connections: a developer's connected users (pages, counts, the dashboard's
// overview and recent list) and the pass over every active connection of one provider.
import type { Db } from '../../store/db.ts';
import type { ConnectionRow } from './repo.ts';
import type { ConnectionStatus } from './tables.ts';

/** Connected users (anything past `pending`), oldest first; a stable order keeps pages consistent. */
export async function listConnected(
  db: Db,
  developerId: string,
  page?: { offset: number; limit: number },
): Promise<ConnectionRow[]> {
  let query = db
    .selectFrom('connections')
    .selectAll()
    .where('developer_id', '=', developerId)
    .where('status', '!=', 'pending')
    .orderBy('created_at')
    .orderBy('id');
  if (page) query = query.offset(page.offset).limit(page.limit);
  return query.execute();
}

export async function countConnected(db: Db, developerId: string): Promise<number> {
  const row = await db
    .selectFrom('connections')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('developer_id', '=', developerId)
    .where('status', '!=', 'pending')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The developer's users counted by provider and status (the dashboard's overview). */
export async function countByProviderAndStatus(
  db: Db,
  developerId: string,
): Promise<{ provider: string; status: ConnectionStatus; n: number }[]> {
  const rows = await db
    .selectFrom('connections')
    .select(['provider', 'status', (eb) => eb.fn.countAll<string>().as('n')])
    .where('developer_id', '=', developerId)
    .groupBy(['provider', 'status'])
    .orderBy('provider')
    .execute();
  return rows.map((row) => ({ provider: row.provider, status: row.status, n: Number(row.n) }));
}

/** The developer's most recent users (the dashboard lists them before any search). */
export async function listRecentConnections(
  db: Db,
  developerId: string,
  limit: number,
): Promise<ConnectionRow[]> {
  return db
    .selectFrom('connections')
    .selectAll()
    .where('developer_id', '=', developerId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Active users of one provider connected at or before `connectedBy`, in id order after `afterId`
 * (keyset pages for a pass over every such user).
 */
export async function pageActiveUsersOfProvider(
  db: Db,
  input: { provider: string; connectedBy: Date; afterId: string | null; limit: number },
): Promise<ConnectionRow[]> {
  let query = db
    .selectFrom('connections')
    .selectAll()
    .where('provider', '=', input.provider)
    .where('status', '=', 'active')
    .where('active', '=', true)
    .where('created_at', '<=', input.connectedBy)
    .orderBy('id')
    .limit(input.limit);
  if (input.afterId) query = query.where('id', '>', input.afterId);
  return query.execute();
}

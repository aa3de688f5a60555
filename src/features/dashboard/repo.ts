import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { AuditLogTable, DashboardSessionsTable } from './tables.ts';

export type DashboardSessionRow = Selectable<DashboardSessionsTable>;
export type AuditEntryRow = Selectable<AuditLogTable>;

export async function insertSession(db: Db, row: Insertable<DashboardSessionsTable>): Promise<void> {
  await db.insertInto('dashboard_sessions').values(row).execute();
}

/** A session that is neither revoked nor expired at `now`. */
export async function findLiveSession(
  db: Db,
  idHash: string,
  now: Date,
): Promise<DashboardSessionRow | undefined> {
  return db
    .selectFrom('dashboard_sessions')
    .selectAll()
    .where('id_hash', '=', idHash)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export async function revokeSession(db: Db, idHash: string, now: Date): Promise<void> {
  await db
    .updateTable('dashboard_sessions')
    .set({ revoked_at: now })
    .where('id_hash', '=', idHash)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function pruneSessions(db: Db, before: Date): Promise<number> {
  const result = await db
    .deleteFrom('dashboard_sessions')
    .where('expires_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function insertAuditEntry(db: Db, row: Insertable<AuditLogTable>): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}

export async function listAuditEntries(
  db: Db,
  filter: { developerId?: string },
  limit: number,
): Promise<AuditEntryRow[]> {
  let query = db.selectFrom('audit_log').selectAll();
  if (filter.developerId !== undefined) query = query.where('developer_id', '=', filter.developerId);
  return query.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

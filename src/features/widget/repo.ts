import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { WidgetSessionsTable } from './tables.ts';

export type WidgetSessionRow = Selectable<WidgetSessionsTable>;

export async function insertWidgetSession(
  db: Db,
  row: Insertable<WidgetSessionsTable>,
): Promise<WidgetSessionRow> {
  return db.insertInto('widget_sessions').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findWidgetSession(db: Db, id: string): Promise<WidgetSessionRow | undefined> {
  return db.selectFrom('widget_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The session, locked until the caller's transaction ends (one connect attempt at a time). */
export async function lockWidgetSession(db: Db, id: string): Promise<WidgetSessionRow | undefined> {
  return db.selectFrom('widget_sessions').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Called in the transaction that completes a connection: the session cannot be used again. */
export async function completeWidgetSession(db: Db, id: string, now: Date): Promise<void> {
  await db
    .updateTable('widget_sessions')
    .set({ completed_at: now })
    .where('id', '=', id)
    .where('completed_at', 'is', null)
    .execute();
}

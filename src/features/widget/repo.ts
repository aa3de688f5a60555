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

export async function findProviderSelection(db: Db, developerId: string): Promise<string[] | undefined> {
  const row = await db
    .selectFrom('widget_provider_selections')
    .select('providers')
    .where('developer_id', '=', developerId)
    .executeTakeFirst();
  return row?.providers;
}

/** `null` forgets the selection: the widget offers every enabled provider again. */
export async function saveProviderSelection(
  db: Db,
  developerId: string,
  providers: string[] | null,
  now: Date,
): Promise<void> {
  if (providers === null) {
    await db.deleteFrom('widget_provider_selections').where('developer_id', '=', developerId).execute();
    return;
  }
  await db
    .insertInto('widget_provider_selections')
    .values({ developer_id: developerId, providers, updated_at: now })
    .onConflict((conflict) => conflict.column('developer_id').doUpdateSet({ providers, updated_at: now }))
    .execute();
}

// The merged view's settings per developer. JSON is written as text and read back as text, the
// way the data feature does, so no driver reshapes it.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { Priorities } from './engine/sources.ts';

export type MergeSettings = { priorities: Priorities; mergedEvents: boolean };

export const DEFAULT_SETTINGS: MergeSettings = { priorities: {}, mergedEvents: false };

export async function readSettings(db: Db, developerId: string): Promise<MergeSettings> {
  const row = await db
    .selectFrom('merge_settings')
    .select([sql<string>`priorities::text`.as('priorities'), 'merged_events'])
    .where('developer_id', '=', developerId)
    .executeTakeFirst();
  if (!row) return DEFAULT_SETTINGS;
  return { priorities: JSON.parse(row.priorities) as Priorities, mergedEvents: row.merged_events };
}

export async function writeSettings(
  db: Db,
  developerId: string,
  settings: MergeSettings,
  now: Date,
): Promise<void> {
  const priorities = sql<string>`${JSON.stringify(settings.priorities)}::jsonb`;
  await db
    .insertInto('merge_settings')
    .values({ developer_id: developerId, priorities, merged_events: settings.mergedEvents, updated_at: now })
    .onConflict((conflict) =>
      conflict.column('developer_id').doUpdateSet({
        priorities,
        merged_events: settings.mergedEvents,
        updated_at: now,
      }),
    )
    .execute();
}

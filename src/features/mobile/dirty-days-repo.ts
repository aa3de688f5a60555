// The local days whose samples changed and wait for a rebuild (rebuild.ts), each with a generation
// so that a rebuild clears only the marks it saw.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';

const BATCH = 500;

export async function markDirty(db: Db, userId: string, days: Iterable<string>): Promise<void> {
  const rows = [...days].map((day) => ({ user_id: userId, local_day: day }));
  for (let index = 0; index < rows.length; index += BATCH) {
    await db
      .insertInto('mobile_dirty_days')
      .values(rows.slice(index, index + BATCH))
      .onConflict((conflict) =>
        conflict
          .columns(['user_id', 'local_day'])
          .doUpdateSet({ generation: sql<number>`mobile_dirty_days.generation + 1` }),
      )
      .execute();
  }
}

export type DirtyDay = { day: string; generation: number };

export async function dirtyDays(db: Db, userId: string, limit: number): Promise<DirtyDay[]> {
  const rows = await db
    .selectFrom('mobile_dirty_days')
    .select([sql<string>`local_day::text`.as('local_day'), 'generation'])
    .where('user_id', '=', userId)
    .orderBy('local_day')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ day: row.local_day, generation: Number(row.generation) }));
}

/** Clears the marks that were rebuilt; a day marked again meanwhile (newer generation) stays. */
export async function clearDirty(db: Db, userId: string, days: readonly DirtyDay[]): Promise<void> {
  if (days.length === 0) return;
  await db
    .deleteFrom('mobile_dirty_days')
    .where('user_id', '=', userId)
    .where((eb) =>
      eb.or(
        days.map((mark) => eb.and([eb('local_day', '=', mark.day), eb('generation', '=', mark.generation)])),
      ),
    )
    .execute();
}

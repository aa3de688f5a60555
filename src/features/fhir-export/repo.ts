// Store access of the bulk export: exports, their units (one per user, with its place) and the
// NDJSON parts of their files. Every function takes the database or transaction it runs in.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { Selectable } from 'kysely';
import type { FhirExportsTable } from './tables.ts';

export type ExportRow = Selectable<FhirExportsTable>;
export type UnitRow = {
  export_id: string;
  user_id: string;
  done: boolean;
  type_index: number;
  after_at: Date | null;
  after_key: string | null;
  devices: string[];
  patient_written: boolean;
  next_seq: number;
};

export async function insertExport(
  db: Db,
  row: Omit<FhirExportsTable, 'units_done'>,
  userIds: readonly string[],
) {
  await db.insertInto('fhir_exports').values(row).execute();
  for (let from = 0; from < userIds.length; from += 1000) {
    await db
      .insertInto('fhir_export_units')
      .values(userIds.slice(from, from + 1000).map((userId) => ({ export_id: row.id, user_id: userId })))
      .execute();
  }
}

export async function findExport(
  db: Db,
  developerId: string | null,
  id: string,
): Promise<ExportRow | undefined> {
  let query = db.selectFrom('fhir_exports').selectAll().where('id', '=', id);
  if (developerId !== null) query = query.where('developer_id', '=', developerId);
  return query.executeTakeFirst();
}

export async function findUnit(db: Db, exportId: string, userId: string): Promise<UnitRow | undefined> {
  return db
    .selectFrom('fhir_export_units')
    .selectAll()
    .where('export_id', '=', exportId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/**
 * Stores one step's lines and moves the unit to `next`, only if nobody moved it since it was read
 * (`next_seq` is the step counter): a second worker running the same unit writes nothing twice.
 */
export async function storeStep(
  db: Db,
  unit: UnitRow,
  files: ReadonlyMap<string, string[]>,
  next: Partial<Pick<UnitRow, 'type_index' | 'after_at' | 'after_key' | 'devices' | 'patient_written'>>,
): Promise<boolean> {
  const moved = await db
    .updateTable('fhir_export_units')
    .set({ ...next, next_seq: unit.next_seq + 1 })
    .where('export_id', '=', unit.export_id)
    .where('user_id', '=', unit.user_id)
    .where('next_seq', '=', unit.next_seq)
    .where('done', '=', false)
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) return false;
  const parts = [...files].filter(([, lines]) => lines.length > 0);
  if (parts.length > 0) {
    await db
      .insertInto('fhir_export_parts')
      .values(
        parts.map(([type, lines]) => ({
          export_id: unit.export_id,
          user_id: unit.user_id,
          resource_type: type,
          seq: unit.next_seq,
          lines: lines.length,
          body: `${lines.join('\n')}\n`,
        })),
      )
      .execute();
  }
  return true;
}

/** Marks a unit done and counts it; returns the export's counts when this call did it. */
export async function finishUnit(
  db: Db,
  unit: { export_id: string; user_id: string },
): Promise<{ units_done: number; units_total: number } | null> {
  const done = await db
    .updateTable('fhir_export_units')
    .set({ done: true })
    .where('export_id', '=', unit.export_id)
    .where('user_id', '=', unit.user_id)
    .where('done', '=', false)
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) !== 1) return null;
  return db
    .updateTable('fhir_exports')
    .set((eb) => ({ units_done: eb('units_done', '+', 1) }))
    .where('id', '=', unit.export_id)
    .returning(['units_done', 'units_total'])
    .executeTakeFirstOrThrow();
}

export async function completeExport(db: Db, id: string, now: Date, expiresAt: Date) {
  await db
    .updateTable('fhir_exports')
    .set({ status: 'completed', completed_at: now, expires_at: expiresAt })
    .where('id', '=', id)
    .where('status', '=', 'in_progress')
    .execute();
}

/** The files of an export: one per user and type, with its line count, in a stable order. */
export async function fileList(db: Db, exportId: string) {
  return db
    .selectFrom('fhir_export_parts')
    .select(['resource_type', 'user_id', sql<number>`sum(lines)::int`.as('count')])
    .where('export_id', '=', exportId)
    .groupBy(['resource_type', 'user_id'])
    .orderBy('resource_type')
    .orderBy('user_id')
    .execute();
}

/** A page of one file's parts after `afterSeq`. */
export async function fileParts(
  db: Db,
  file: { exportId: string; userId: string; type: string },
  afterSeq: number,
  limit: number,
) {
  return db
    .selectFrom('fhir_export_parts')
    .select(['seq', 'body'])
    .where('export_id', '=', file.exportId)
    .where('user_id', '=', file.userId)
    .where('resource_type', '=', file.type)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
}

/** Deletes an export and everything it wrote (its units and parts go by cascade). */
export async function deleteExport(db: Db, id: string): Promise<boolean> {
  const deleted = await db.deleteFrom('fhir_exports').where('id', '=', id).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

export async function expiredExports(db: Db, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('fhir_exports')
    .select('id')
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

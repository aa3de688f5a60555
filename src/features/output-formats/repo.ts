import type { Db } from '../../store/db.ts';
import { DEFAULT_OUTPUT_FORMAT, isOutputFormat, type OutputFormat } from './formats.ts';
import './tables.ts';

/** The developer's delivery format (`json` when none was chosen). */
export async function findOutputFormat(db: Db, developerId: string): Promise<OutputFormat> {
  const row = await db
    .selectFrom('developer_output_formats')
    .select('format')
    .where('developer_id', '=', developerId)
    .executeTakeFirst();
  return row && isOutputFormat(row.format) ? row.format : DEFAULT_OUTPUT_FORMAT;
}

/** Sets the developer's delivery format; `json` (the default) removes the row. */
export async function setOutputFormat(
  db: Db,
  developerId: string,
  format: OutputFormat,
  at: Date,
): Promise<void> {
  if (format === DEFAULT_OUTPUT_FORMAT) {
    await db.deleteFrom('developer_output_formats').where('developer_id', '=', developerId).execute();
    return;
  }
  await db
    .insertInto('developer_output_formats')
    .values({ developer_id: developerId, format, updated_at: at })
    .onConflict((conflict) => conflict.column('developer_id').doUpdateSet({ format, updated_at: at }))
    .execute();
}

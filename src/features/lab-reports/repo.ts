// The lab-report tables. Every read is scoped to its developer and skips deleted sessions.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { ParsedReport, ReportType } from './result-types.ts';
import type { FailureReason, SessionStatus, StatusEntry } from './tables.ts';

export type SessionRow = {
  id: string;
  developer_id: string;
  upload_id: string;
  reference_id: string | null;
  status: SessionStatus;
  report_type: ReportType;
  api_version: string;
  status_history: StatusEntry[];
  media_type: string;
  file_name: string | null;
  input_bytes: number;
  attempts: number;
  results_count: number | null;
  report_date: string | null;
  error: FailureReason | null;
  event_id: string | null;
  uploaded_at: Date;
  updated_at: Date;
};

const SUMMARY = [
  sql<string>`id::text`.as('id'),
  'developer_id',
  'upload_id',
  'reference_id',
  'status',
  'report_type',
  'api_version',
  'status_history',
  'media_type',
  'file_name',
  'input_bytes',
  'attempts',
  'results_count',
  sql<string | null>`report_date::text`.as('report_date'),
  'error',
  'event_id',
  'uploaded_at',
  'updated_at',
] as const;

/** JSON columns come back parsed from PostgreSQL and as text from some drivers: read both. */
const parsed = <T>(value: unknown): T =>
  typeof value === 'string' ? (JSON.parse(value) as T) : (value as T);

function toRow(row: Record<string, unknown>): SessionRow {
  return {
    ...(row as SessionRow),
    status_history: parsed<StatusEntry[]>(row.status_history),
    error: row.error == null ? null : parsed<FailureReason>(row.error),
  };
}

export async function insertSession(
  trx: Db,
  input: {
    developerId: string;
    uploadId: string;
    referenceId: string | null;
    mediaType: string;
    fileName: string | null;
    inputBytes: number;
    /** Absent: the column's default (the first version), as sessions stored before 0043. */
    apiVersion?: string;
    history: StatusEntry[];
    at: Date;
  },
): Promise<string> {
  const row = await trx
    .insertInto('lab_report_sessions')
    .values({
      developer_id: input.developerId,
      upload_id: input.uploadId,
      reference_id: input.referenceId,
      status: 'processing',
      status_history: JSON.stringify(input.history),
      media_type: input.mediaType,
      file_name: input.fileName,
      input_bytes: input.inputBytes,
      ...(input.apiVersion === undefined ? {} : { api_version: input.apiVersion }),
      results_count: null,
      report: null,
      report_date: null,
      error: null,
      event_id: null,
      uploaded_at: input.at,
      updated_at: input.at,
      deleted_at: null,
    })
    .returning(sql<string>`id::text`.as('id'))
    .executeTakeFirstOrThrow();
  return row.id;
}

export type StoredFile = { sealed: Uint8Array; legacyBase64: boolean };

export async function insertFile(trx: Db, sessionId: string, sealed: Uint8Array): Promise<void> {
  await trx
    .insertInto('lab_report_files')
    .values({ session_id: sessionId, sealed, legacy_base64: false })
    .execute();
}

export async function readFile(db: Db, sessionId: string): Promise<StoredFile | undefined> {
  const row = await db
    .selectFrom('lab_report_files')
    .select(['sealed', 'legacy_base64'])
    .where('session_id', '=', sessionId)
    .executeTakeFirst();
  return row && { sealed: row.sealed, legacyBase64: row.legacy_base64 };
}

/**
 * Up to `limit` files still in the pre-0023 form, locked for re-sealing (rows another pass holds are
 * skipped). In the caller's transaction.
 */
export async function lockLegacyFiles(
  trx: Db,
  limit: number,
): Promise<{ sessionId: string; sealed: Uint8Array }[]> {
  const rows = await trx
    .selectFrom('lab_report_files')
    .select([sql<string>`session_id::text`.as('session_id'), 'sealed'])
    .where('legacy_base64', '=', true)
    .orderBy('session_id')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
  return rows.map((row) => ({ sessionId: row.session_id, sealed: row.sealed }));
}

export async function replaceFile(trx: Db, sessionId: string, sealed: Uint8Array): Promise<void> {
  await trx
    .updateTable('lab_report_files')
    .set({ sealed, legacy_base64: false })
    .where('session_id', '=', sessionId)
    .execute();
}

/** The developer's session, unless deleted. */
const sessionOf = (db: Db, developerId: string, sessionId: string) =>
  db
    .selectFrom('lab_report_sessions')
    .select(SUMMARY)
    .where('id', '=', sessionId as never)
    .where('developer_id', '=', developerId)
    .where('deleted_at', 'is', null);

export async function findSession(
  db: Db,
  developerId: string,
  sessionId: string,
): Promise<SessionRow | undefined> {
  const row = await sessionOf(db, developerId, sessionId).executeTakeFirst();
  return row ? toRow(row) : undefined;
}

export async function readReport(db: Db, sessionId: string): Promise<ParsedReport | null> {
  const row = await db
    .selectFrom('lab_report_sessions')
    .select('report')
    .where('id', '=', sessionId as never)
    .executeTakeFirst();
  return row?.report == null ? null : parsed<ParsedReport>(row.report);
}

/** The parsed reports of several sessions, in one query (for listings). */
export async function readReports(db: Db, sessionIds: readonly string[]): Promise<Map<string, ParsedReport>> {
  if (sessionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('lab_report_sessions')
    .select([sql<string>`id::text`.as('id'), 'report'])
    .where('id', 'in', sessionIds as never[])
    .where('report', 'is not', null)
    .execute();
  return new Map(rows.map((row) => [row.id, parsed<ParsedReport>(row.report)]));
}

/** The developer's session, locked until the caller's transaction ends; undefined when not found. */
export async function lockSession(
  trx: Db,
  developerId: string,
  sessionId: string,
): Promise<SessionRow | undefined> {
  const row = await sessionOf(trx, developerId, sessionId).forUpdate().executeTakeFirst();
  return row ? toRow(row) : undefined;
}

export async function hasFile(db: Db, sessionId: string): Promise<boolean> {
  const row = await db
    .selectFrom('lab_report_files')
    .select('session_id')
    .where('session_id', '=', sessionId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Puts a processed session back to `processing` for another read, with fresh attempts. Its report,
 * results and event stay as they are until the new read finishes (`finish` replaces them).
 */
export async function reopen(trx: Db, sessionId: string, history: StatusEntry[], at: Date): Promise<void> {
  await trx
    .updateTable('lab_report_sessions')
    .set({ status: 'processing', attempts: 0, status_history: JSON.stringify(history), updated_at: at })
    .where('id', '=', sessionId as never)
    .execute();
}

/** Locks the session for processing and counts the attempt; undefined when it is gone. */
export async function startAttempt(trx: Db, sessionId: string): Promise<SessionRow | undefined> {
  const row = await trx
    .updateTable('lab_report_sessions')
    .set({ attempts: sql<number>`attempts + 1` })
    .where('id', '=', sessionId as never)
    .where('deleted_at', 'is', null)
    .returning(SUMMARY)
    .executeTakeFirst();
  return row ? toRow(row) : undefined;
}

export async function finish(
  trx: Db,
  sessionId: string,
  outcome:
    | { status: 'completed'; report: ParsedReport; history: StatusEntry[]; eventId: string; at: Date }
    | { status: 'failed'; error: FailureReason; history: StatusEntry[]; eventId: string; at: Date },
): Promise<void> {
  await trx
    .updateTable('lab_report_sessions')
    .set({
      status: outcome.status,
      status_history: JSON.stringify(outcome.history),
      event_id: outcome.eventId,
      updated_at: outcome.at,
      // A read replaces whatever an earlier read of the session left (see `reopen`): the
      // results of a completed read clear an old error, a failed read clears old results.
      ...(outcome.status === 'completed'
        ? {
            report: JSON.stringify(outcome.report),
            report_type: outcome.report.reportType ?? 'lab',
            results_count: outcome.report.results.length,
            report_date: outcome.report.reportDate ?? null,
            error: null,
          }
        : { error: JSON.stringify(outcome.error), report: null, results_count: null, report_date: null }),
    })
    .where('id', '=', sessionId as never)
    .execute();
}

export type ListFilters = {
  referenceId?: string;
  reportType?: ReportType;
  uploadId?: string;
  reportDateFrom?: string;
  reportDateTo?: string;
  uploadedFrom?: Date;
  uploadedBefore?: Date;
};

export async function listSessions(db: Db, developerId: string, filters: ListFilters, limit: number) {
  let query = db
    .selectFrom('lab_report_sessions')
    .select(SUMMARY)
    .where('developer_id', '=', developerId)
    .where('deleted_at', 'is', null);
  if (filters.referenceId !== undefined) query = query.where('reference_id', '=', filters.referenceId);
  if (filters.uploadId !== undefined) query = query.where('upload_id', '=', filters.uploadId);
  if (filters.reportType !== undefined) query = query.where('report_type', '=', filters.reportType);
  if (filters.reportDateFrom)
    query = query.where(sql`report_date`, '>=', sql`${filters.reportDateFrom}::date`);
  if (filters.reportDateTo) query = query.where(sql`report_date`, '<=', sql`${filters.reportDateTo}::date`);
  if (filters.uploadedFrom) query = query.where('uploaded_at', '>=', filters.uploadedFrom);
  if (filters.uploadedBefore) query = query.where('uploaded_at', '<', filters.uploadedBefore);
  const rows = await query.orderBy('uploaded_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map(toRow);
}

/** Marks the session deleted and drops its file, in the caller's transaction; false when not found. */
export async function deleteSession(
  trx: Db,
  developerId: string,
  sessionId: string,
  at: Date,
): Promise<boolean> {
  const row = await trx
    .updateTable('lab_report_sessions')
    .set({ deleted_at: at, updated_at: at, report: null })
    .where('id', '=', sessionId as never)
    .where('developer_id', '=', developerId)
    .where('deleted_at', 'is', null)
    .returning(sql<string>`id::text`.as('id'))
    .executeTakeFirst();
  if (!row) return false;
  await trx.deleteFrom('lab_report_files').where('session_id', '=', sessionId).execute();
  return true;
}

/** A session by id alone (the job queue's give-up handler knows no developer). */
export async function findSessionById(db: Db, sessionId: string): Promise<SessionRow | undefined> {
  const row = await db
    .selectFrom('lab_report_sessions')
    .select(SUMMARY)
    .where('id', '=', sessionId as never)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row ? toRow(row) : undefined;
}

/**
 * One page of a reference id's live sessions (report included) in id order after `afterId`: a
 * data-subject export reads them all, a page at a time.
 */
export async function sessionPageOfReference(
  db: Db,
  developerId: string,
  referenceId: string,
  afterId: string,
  limit: number,
): Promise<(SessionRow & { report: ParsedReport | null })[]> {
  const rows = await db
    .selectFrom('lab_report_sessions')
    .select([...SUMMARY, 'report'])
    .where('developer_id', '=', developerId)
    .where('reference_id', '=', referenceId)
    .where('deleted_at', 'is', null)
    .where(sql<boolean>`id > ${afterId}::bigint`)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    ...toRow(row),
    report: row.report == null ? null : parsed<ParsedReport>(row.report),
  }));
}

/** The developer's pinned lab-reports API version, or null when none is pinned. */
export async function findVersionPin(db: Db, developerId: string): Promise<string | null> {
  const row = await db
    .selectFrom('lab_report_version_pins')
    .select('api_version')
    .where('developer_id', '=', developerId)
    .executeTakeFirst();
  return row?.api_version ?? null;
}

/** Pins the developer's version (null: unpinned, the latest serves). */
export async function setVersionPin(
  db: Db,
  developerId: string,
  version: string | null,
  at: Date,
): Promise<void> {
  if (version === null) {
    await db.deleteFrom('lab_report_version_pins').where('developer_id', '=', developerId).execute();
    return;
  }
  await db
    .insertInto('lab_report_version_pins')
    .values({ developer_id: developerId, api_version: version, updated_at: at })
    .onConflict((conflict) =>
      conflict.column('developer_id').doUpdateSet({ api_version: version, updated_at: at }),
    )
    .execute();
}

// Lab reports: an app uploads a report file (PDF or photo); a durable job reads it (text layer,
// else OCR), turns it into layered results (report.ts) and sends `lab_report.completed` — or
// `lab_report.failed` with a structured reason — through the webhook engine. The session keeps its
// status history; the file is sealed at rest and goes with the session. Nothing leaves the machine.
// Its parts: the processing job (processing.ts), file links (file-links.ts), version pins
// (version-pins.ts); this module takes uploads, re-reads and the session reads.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import { newId } from '../../core/ids.ts';
import { AppError, conflict, invalidParameter, notFound } from '../../core/errors.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { isIsoDate } from '../../model/time.ts';
import type { Db } from '../../store/db.ts';
import type { WebhooksService } from '../delivery/service.ts';
import { EXTENSIONS, sniffMediaType } from './media-types.ts';
import { resealLegacyFiles, sealFile } from './file-box.ts';
import * as repo from './repo.ts';
import { UnreadableFileError } from './extraction/errors.ts';
import { type ReportParser, isolatedParse } from './isolated-parse.ts';
import { createRequestWindows } from '../limits/windows.ts';
import { type LabReportSettings, labReportSettings } from './settings.ts';
import { readSettings } from '../../core/settings.ts';
import { LAB_REPORT_QUEUE } from './queue.ts';
import { sessionView, statusHistory, summaryView, type DeliveryState } from './views.ts';
import { LATEST_VERSION, type LabReportVersion } from './api-version.ts';
import type { ReportType } from './result-types.ts';
import { createFileLinks } from './file-links.ts';
import { createProcessing, entry } from './processing.ts';
import { createVersionPins } from './version-pins.ts';

export { MAX_ATTEMPTS } from './processing.ts';

const REPORT_TYPES: readonly ReportType[] = ['lab', 'dexa'];

export const MAX_FILE_BYTES = 20 * 1024 * 1024;
const LIST_LIMIT = 1000;
const SESSION_ID = /^\d{1,18}$/;
const MAX_REFERENCE = 256;

export type LabReportsDeps = {
  db: Db;
  jobs: JobQueue;
  clock: Clock;
  log: Logger;
  secretBox: SecretBox;
  publicUrl: string;
  webhooks: Pick<WebhooksService, 'emit' | 'eventStates'>;
  /** LAB_REPORT_* settings (reading limits, reader process, concurrency); the defaults when absent. */
  settings?: LabReportSettings;
  /**
   * The parser: by default the whole reading runs in an isolated child process (isolated-parse.ts);
   * tests may put a failing one in to show retries and failures.
   */
  parse?: ReportParser;
};

type Owner = { id: string };

export type ListQuery = {
  reference_id?: string;
  report_type?: string;
  upload_id?: string;
  report_date_from?: string;
  report_date_to?: string;
  uploaded_at_from?: string;
  uploaded_at_to?: string;
};

function checkDate(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isIsoDate(value)) throw invalidParameter(name, 'expected a date as YYYY-MM-DD');
  return value;
}

export function createLabReportsService(deps: LabReportsDeps) {
  const { db, jobs, clock, secretBox, webhooks } = deps;
  const settings: LabReportSettings = deps.settings ?? readSettings(labReportSettings, {});
  // The extraction code and the biomarker dictionary load in the reader process, never in this process.
  const parse: ReportParser = deps.parse ?? isolatedParse(settings);
  const windows = createRequestWindows({ db, clock });

  function checkSessionId(sessionId: string) {
    if (!SESSION_ID.test(sessionId)) throw invalidParameter('session_id', 'expected a numeric session id');
  }

  async function mustFind(owner: Owner, sessionId: string) {
    checkSessionId(sessionId);
    const row = await repo.findSession(db, owner.id, sessionId);
    if (!row) throw notFound(`no lab report session "${sessionId}"`);
    return row;
  }

  async function deliveryStates(owner: Owner, rows: repo.SessionRow[]): Promise<Map<string, DeliveryState>> {
    const ids = rows.flatMap((row) => (row.event_id ? [row.event_id] : []));
    return webhooks.eventStates(owner.id, ids);
  }

  const processing = createProcessing({ db, clock, log: deps.log, secretBox, webhooks, parse });
  const fileLinks = createFileLinks({ db, clock, secretBox, publicUrl: deps.publicUrl, mustFind });

  return {
    settings,
    ...createVersionPins({ db, clock }),
    ...processing,
    ...fileLinks,

    /** Whether the developer may upload another report now (LAB_REPORT_UPLOAD_RATE): 429 past it. */
    admitUpload(developerId: string): Promise<void> {
      const rate = settings.uploadRate;
      return windows.enforce(
        `lab-report-upload:${developerId}`,
        rate,
        `more than ${rate.limit} lab report uploads in ${rate.windowSeconds} s from this developer (LAB_REPORT_UPLOAD_RATE)`,
      );
    },

    /** The job of RESEAL_FILES_QUEUE: files stored before migration 0023 re-sealed as bytes. */
    async resealLegacyFiles(): Promise<number> {
      const resealed = await resealLegacyFiles({ db, secretBox });
      if (resealed > 0) deps.log.info({ resealed }, 'lab report files re-sealed as bytes');
      return resealed;
    },

    async upload(
      owner: Owner,
      file: { bytes: Buffer; fileName: string | null },
      referenceId: string | undefined,
      apiVersion: LabReportVersion = LATEST_VERSION,
    ): Promise<{ upload_id: string; current_status: string }> {
      if (referenceId !== undefined && (referenceId.length === 0 || referenceId.length > MAX_REFERENCE))
        throw invalidParameter('reference_id', `expected 1 to ${MAX_REFERENCE} characters`);
      if (file.bytes.length === 0) throw invalidParameter('file', 'the file is empty');
      if (file.bytes.length > MAX_FILE_BYTES)
        throw new AppError(
          'payload_too_large',
          `file: larger than the ${MAX_FILE_BYTES / 1024 / 1024} MB limit`,
        );
      const mediaType = sniffMediaType(file.bytes);
      if (!mediaType)
        throw invalidParameter('file', 'expected a PDF, PNG, JPEG, GIF or WebP file (by its content)');
      const uploadId = newId('labReportUpload', 8);
      const at = clock.now();
      const sealed = sealFile(secretBox, file.bytes);
      await db.transaction().execute(async (trx) => {
        const sessionId = await repo.insertSession(trx, {
          developerId: owner.id,
          uploadId,
          referenceId: referenceId ?? null,
          mediaType,
          fileName: file.fileName,
          inputBytes: file.bytes.length,
          apiVersion,
          history: [entry('processing', at, 'uploaded')],
          at,
        });
        await repo.insertFile(trx, sessionId, sealed);
        // Grouped by developer: a worker reads at most LAB_REPORT_DEVELOPER_CONCURRENCY of one
        // developer's reports at once, so one tenant's uploads never hold every worker.
        await jobs.send(LAB_REPORT_QUEUE, { sessionId }, { trx, group: { id: owner.id } });
      });
      return { upload_id: uploadId, current_status: 'processing' };
    },

    /**
     * Reads a processed session's stored file again with the current reader, in the processing
     * job, which sends a new `lab_report.completed` (or `.failed`). Until that read commits the
     * session keeps its results. Asking again while the re-read is pending changes nothing.
     */
    async reprocess(
      owner: Owner,
      sessionId: string,
    ): Promise<{ session_id: string; current_status: string }> {
      checkSessionId(sessionId);
      const accepted = { session_id: sessionId, current_status: 'processing' };
      const found = await repo.findSession(db, owner.id, sessionId);
      if (!found) throw notFound(`no lab report session "${sessionId}"`);
      // The delivery of the read being replaced, so its `sent` stays in the history.
      const states = await deliveryStates(owner, [found]);
      return db.transaction().execute(async (trx) => {
        const row = await repo.lockSession(trx, owner.id, sessionId);
        if (!row) throw notFound(`no lab report session "${sessionId}"`);
        if (row.status === 'processing') {
          // An earlier read left an event: this is a re-read already on its way.
          if (row.event_id !== null) return accepted;
          throw conflict(
            `lab report session "${sessionId}" is still processing its upload; reprocess it once it has completed or failed`,
          );
        }
        if (!(await repo.hasFile(trx, row.id)))
          throw new AppError(
            'gone',
            `the uploaded file of lab report session "${sessionId}" is no longer stored, so it cannot be read again`,
          );
        const at = clock.now();
        const state = row.event_id ? states.get(row.event_id) : undefined;
        const history = [...statusHistory(row, state), entry('processing', at, 'reprocess requested')];
        await repo.reopen(trx, row.id, history, at);
        await jobs.send(LAB_REPORT_QUEUE, { sessionId: row.id }, { trx });
        return accepted;
      });
    },

    async list(owner: Owner, query: ListQuery) {
      const reportType = query.report_type;
      if (reportType !== undefined && !REPORT_TYPES.includes(reportType as ReportType))
        throw invalidParameter('report_type', `expected one of ${REPORT_TYPES.join(', ')}`);
      const uploadedFrom = checkDate('uploaded_at_from', query.uploaded_at_from);
      const uploadedTo = checkDate('uploaded_at_to', query.uploaded_at_to);
      const rows = await repo.listSessions(
        db,
        owner.id,
        {
          ...(query.reference_id === undefined ? {} : { referenceId: query.reference_id }),
          ...(query.upload_id === undefined ? {} : { uploadId: query.upload_id }),
          ...(reportType === undefined ? {} : { reportType: reportType as ReportType }),
          ...(checkDate('report_date_from', query.report_date_from)
            ? { reportDateFrom: query.report_date_from }
            : {}),
          ...(checkDate('report_date_to', query.report_date_to)
            ? { reportDateTo: query.report_date_to }
            : {}),
          ...(uploadedFrom ? { uploadedFrom: new Date(`${uploadedFrom}T00:00:00Z`) } : {}),
          // Inclusive of the whole last day.
          ...(uploadedTo
            ? { uploadedBefore: new Date(Date.parse(`${uploadedTo}T00:00:00Z`) + 86_400_000) }
            : {}),
        },
        LIST_LIMIT,
      );
      const states = await deliveryStates(owner, rows);
      const reports = await repo.readReports(
        db,
        rows.map((row) => row.id),
      );
      return { sessions: rows.map((row) => summaryView(row, reports.get(row.id) ?? null, states)) };
    },

    /**
     * One page of a reference id's reports (results included) in upload order after `afterId`
     * (a data-subject export); `next` is where the following page starts (null: none).
     */
    async reportPageOfReference(
      developerId: string,
      referenceId: string,
      afterId: string | null,
      limit: number,
    ) {
      const rows = await repo.sessionPageOfReference(db, developerId, referenceId, afterId ?? '0', limit);
      return {
        reports: rows.map((row) => ({
          id: row.id,
          upload_id: row.upload_id,
          status: row.status,
          media_type: row.media_type,
          file_name: row.file_name,
          file_extension: EXTENSIONS[row.media_type as keyof typeof EXTENSIONS] ?? 'bin',
          uploaded_at: new Date(row.uploaded_at).toISOString(),
          report_date: row.report_date,
          results_count: row.results_count,
          report: row.report,
          error: row.error,
        })),
        next: rows.length < limit ? null : rows.at(-1)!.id,
      };
    },

    /** The newest sessions of one reference id, with their results (the dashboard's user page). */
    async withResultsFor(owner: Owner, referenceId: string, limit: number) {
      const rows = await repo.listSessions(db, owner.id, { referenceId }, limit);
      const states = await deliveryStates(owner, rows);
      const reports = await repo.readReports(
        db,
        rows.map((row) => row.id),
      );
      return rows.map((row) => sessionView(row, reports.get(row.id) ?? null, states));
    },

    async get(owner: Owner, sessionId: string) {
      const row = await mustFind(owner, sessionId);
      const report = await repo.readReport(db, row.id);
      return sessionView(row, report, await deliveryStates(owner, [row]));
    },

    async remove(owner: Owner, sessionId: string): Promise<void> {
      checkSessionId(sessionId);
      const deleted = await db
        .transaction()
        .execute((trx) => repo.deleteSession(trx, owner.id, sessionId, clock.now()));
      if (!deleted) throw notFound(`no lab report session "${sessionId}"`);
    },

    async deliveries(owner: Owner, sessionId: string) {
      const row = await mustFind(owner, sessionId);
      const state = row.event_id ? (await deliveryStates(owner, [row])).get(row.event_id) : undefined;
      if (!state || !state.destinationId) return { deliveries: [] };
      const status =
        state.status === 'delivered'
          ? 'delivered'
          : state.status === 'failed' || state.status === 'rejected' || state.status === 'dropped'
            ? 'failed'
            : 'pending';
      return {
        deliveries: [
          {
            destination_id: state.destinationId,
            destination_type: 'webhook',
            status,
            attempt_count: Math.max(0, state.attempts - 1),
            ...(status !== 'delivered' && state.lastError ? { last_error: state.lastError } : {}),
          },
        ],
      };
    },
  };
}

export type LabReportsService = ReturnType<typeof createLabReportsService>;

export { UnreadableFileError };

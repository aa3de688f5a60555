// The processing job of a lab report session: read the stored file in the reader process, store
// the report and send `lab_report.completed`, or fail the session with a structured reason and
// send `lab_report.failed`. A session whose attempts keep dying is failed, not tried forever.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { wireDateTime } from '../../model/time.ts';
import type { Db } from '../../store/db.ts';
import type { WebhooksService } from '../delivery/service.ts';
import { readsScans, versionOn } from './api-version.ts';
import { completedEvent, failedEvent } from './events.ts';
import { UnreadableFileError } from './extraction/errors.ts';
import { openFile } from './file-box.ts';
import type { ReportParser } from './isolated-parse.ts';
import * as repo from './repo.ts';
import type { FailureReason, StatusEntry } from './tables.ts';

/** Processing attempts before a session fails for good (`internal`, retriable). */
export const MAX_ATTEMPTS = 3;

/** One entry of a session's status history. */
export const entry = (status: string, at: Date, note?: string): StatusEntry => ({
  status,
  timestamp: wireDateTime(at),
  ...(note ? { note } : {}),
});

export type ProcessingDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  secretBox: SecretBox;
  webhooks: Pick<WebhooksService, 'emit'>;
  parse: ReportParser;
};

export function createProcessing(deps: ProcessingDeps) {
  const { db, clock, secretBox, webhooks, parse } = deps;

  /** Fails a session still processing: the failed event and the session's history, in one transaction. */
  async function failSession(session: repo.SessionRow, error: FailureReason): Promise<void> {
    const who = { id: session.id, uploadId: session.upload_id, referenceId: session.reference_id };
    const at = clock.now();
    await db.transaction().execute(async (trx) => {
      const eventId = await webhooks.emit(trx, session.developer_id, failedEvent(who, error, at));
      await repo.finish(trx, session.id, {
        status: 'failed',
        error,
        history: [...session.status_history, entry('failed', at, error.message)],
        eventId,
        at,
      });
    });
  }

  const stoppedReason = (attempts: number, cause?: string): FailureReason => ({
    code: 'internal',
    message: `The report could not be processed: its processing stopped ${attempts} time(s) without finishing${cause ? ` (${cause})` : ''}.`,
    retriable: true,
  });

  return {
    /**
     * The queue gave up on a session's job (its retries spent, or its worker stopped heartbeating
     * each time): the session fails with the reason and its failed event is sent.
     */
    async giveUp(sessionId: string, cause: string): Promise<void> {
      const session = await repo.findSessionById(db, sessionId);
      if (!session || session.status !== 'processing') return;
      await failSession(session, stoppedReason(session.attempts, cause));
    },

    /** The job: read the file, parse it, store the report and send the event, or fail with a reason. */
    async process(sessionId: string): Promise<void> {
      const session = await db.transaction().execute((trx) => repo.startAttempt(trx, sessionId));
      // Deleted meanwhile, or already done (a job that ran twice): nothing to do.
      if (!session || session.status !== 'processing') return;
      const who = { id: session.id, uploadId: session.upload_id, referenceId: session.reference_id };
      const fail = (error: FailureReason) => failSession(session, error);
      // Every earlier attempt started and none finished (its worker died): a poison file, not tried again.
      if (session.attempts > MAX_ATTEMPTS) {
        await fail(stoppedReason(session.attempts - 1));
        return;
      }
      const stored = await repo.readFile(db, session.id);
      if (stored === undefined) return;
      let report;
      try {
        const bytes = openFile(secretBox, stored);
        // The version the upload was served by decides whether scans are told apart.
        const scans = readsScans(versionOn(session.api_version));
        report = await parse(bytes, session.media_type as never, { scans });
      } catch (error) {
        if (error instanceof UnreadableFileError) {
          await fail({
            code: 'file_unreadable',
            message: `The uploaded file could not be read: ${error.message}.`,
            retriable: false,
          });
          return;
        }
        deps.log.warn({ err: error, sessionId, attempt: session.attempts }, 'lab report processing failed');
        if (session.attempts >= MAX_ATTEMPTS) {
          await fail({
            code: 'internal',
            message: 'The report could not be processed; submitting it again may succeed.',
            retriable: true,
          });
          return;
        }
        throw error;
      }
      if (report.results.length === 0) {
        await fail({
          code: 'extraction_failed',
          message: 'No test results could be read from the file (no rows with a test name and a value).',
          retriable: false,
        });
        return;
      }
      const at = clock.now();
      await db.transaction().execute(async (trx) => {
        const eventId = await webhooks.emit(trx, session.developer_id, completedEvent(who, report, at));
        const note = `${report.results.length} results from ${report.pages} page(s)${report.ocrPages ? `, ${report.ocrPages} by OCR` : ''}`;
        await repo.finish(trx, session.id, {
          status: 'completed',
          report,
          history: [...session.status_history, entry('completed', at, note)],
          eventId,
          at,
        });
      });
    },
  };
}

export type Processing = ReturnType<typeof createProcessing>;

// The lab_report webhook events (`lab_report.completed`, `lab_report.failed`) as the wire
// contract defines them: report-scoped (no user, no version), an event id stable across
// redeliveries (the stored body is sent as is), and the upload id that correlates them. A
// reprocessed session sends a new event (a new event id) for each read. The payload's event_id is
// the webhook event's own id (the `webhook-id` header), so the replay API takes it.
import { newUuidId } from '../../core/ids.ts';
import { wireDateTime } from '../../model/time.ts';
import type { WebhookEnvelope } from '../delivery/events.ts';
import type { ParsedReport } from './result-types.ts';
import type { FailureReason } from './tables.ts';
import { wireResult } from './views.ts';

type Session = { id: string; uploadId: string; referenceId: string | null };

const reference = (session: Session) =>
  session.referenceId === null ? {} : { reference_id: session.referenceId };

export function completedEvent(session: Session, report: ParsedReport, at: Date): WebhookEnvelope {
  const collection = {
    ...(report.collectionDate ? { collection_date: report.collectionDate } : {}),
    ...(report.collectionTime ? { collection_time: report.collectionTime } : {}),
  };
  const id = newUuidId('webhookEvent');
  return {
    id,
    type: 'lab_report.completed',
    reference: session.referenceId,
    payload: {
      type: 'lab_report.completed',
      event_id: id,
      occurred_at: wireDateTime(at),
      upload_id: session.uploadId,
      data: {
        session_id: session.id,
        ...reference(session),
        report_type: report.reportType ?? 'lab',
        ...(report.reportDate ? { report_date: report.reportDate } : {}),
        ...(report.reportTime ? { report_time: report.reportTime } : {}),
        ...(report.locale ? { report_locale: report.locale } : {}),
        results_count: report.results.length,
        results: report.results.map((result) => ({
          ...wireResult(result),
          source: { ...result.source, ...collection },
        })),
        ...(report.panels.length > 0 ? { panels: report.panels } : {}),
        unmatched: report.unmatched ?? [],
        ...(report.notes ? { report_notes: report.notes } : {}),
      },
    },
  };
}

export function failedEvent(session: Session, error: FailureReason, at: Date): WebhookEnvelope {
  const id = newUuidId('webhookEvent');
  return {
    id,
    type: 'lab_report.failed',
    reference: session.referenceId,
    payload: {
      type: 'lab_report.failed',
      event_id: id,
      occurred_at: wireDateTime(at),
      upload_id: session.uploadId,
      data: { session_id: session.id, ...reference(session), error },
    },
  };
}

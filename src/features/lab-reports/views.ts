// Sessions as the wire contract shows them (LabReportSession). The current status follows the
// session (processing, failed) and, once processed, its webhook delivery: `sent` when the event
// was delivered, `delivery_failed` when it could not be, `completed` while it is on its way.
// Every result carries the reader's review marking (`confidence`, `needs_review`), and the rows
// that matched no biomarker are listed under `unmatched` with their printed text.
import { wireDateTime } from '../../model/time.ts';
import type { EventState } from '../delivery/service.ts';
import type { SessionRow } from './repo.ts';
import type { LabResult, ParsedReport } from './result-types.ts';
import type { StatusEntry } from './tables.ts';

export type DeliveryState = EventState;

function delivery(row: SessionRow, states: Map<string, DeliveryState>) {
  return row.event_id ? states.get(row.event_id) : undefined;
}

function currentStatus(row: SessionRow, state: DeliveryState | undefined): string {
  if (row.status !== 'completed') return row.status;
  if (state?.status === 'delivered') return 'sent';
  if (state && ['failed', 'rejected', 'dropped'].includes(state.status)) return 'delivery_failed';
  return 'completed';
}

/** The stored history, plus `sent` once the session's event was delivered. */
export function statusHistory(row: SessionRow, state: DeliveryState | undefined): StatusEntry[] {
  if (row.status === 'completed' && state?.status === 'delivered' && state.deliveredAt)
    return [...row.status_history, { status: 'sent', timestamp: wireDateTime(state.deliveredAt) }];
  return row.status_history;
}

export function summaryView(
  row: SessionRow,
  report: ParsedReport | null,
  states: Map<string, DeliveryState>,
) {
  const state = delivery(row, states);
  return {
    session_id: row.id,
    upload_id: row.upload_id,
    ...(row.reference_id === null ? {} : { reference_id: row.reference_id }),
    report_type: row.report_type,
    current_status: currentStatus(row, state),
    uploaded_at: wireDateTime(row.uploaded_at),
    updated_at: wireDateTime(row.updated_at),
    ...(report?.reportDate ? { report_date: report.reportDate } : {}),
    ...(report?.reportTime ? { report_time: report.reportTime } : {}),
    ...(report?.collectionDate ? { collection_date: report.collectionDate } : {}),
    ...(report?.collectionTime ? { collection_time: report.collectionTime } : {}),
    ...(report?.locale ? { report_locale: report.locale } : {}),
    ...(report?.labName ? { lab_name: report.labName } : {}),
    ...(report?.patientAge === undefined ? {} : { patient_age_at_collection: report.patientAge }),
    ...(report?.patientSex ? { patient_sex: report.patientSex } : {}),
    input_bytes: row.input_bytes,
    ...(row.results_count === null ? {} : { results_count: row.results_count }),
    file_count: 1,
    status_history: statusHistory(row, state),
    ...(report?.notes ? { report_notes: report.notes } : {}),
  };
}

/** A result as stored: reports read before the reader kept a review marking have none. */
type StoredResult = Omit<LabResult, 'confidence' | 'needs_review'> & {
  confidence?: number;
  needs_review?: boolean;
};

/**
 * A result as the API and the webhook send it: always with its review marking. Reports read before
 * the reader kept one were passed on as certain then and say so (1, false).
 */
export function wireResult(
  result: StoredResult,
): StoredResult & { confidence: number; needs_review: boolean } {
  return { ...result, confidence: result.confidence ?? 1, needs_review: result.needs_review ?? false };
}

export function sessionView(
  row: SessionRow,
  report: ParsedReport | null,
  states: Map<string, DeliveryState>,
) {
  const summary = summaryView(row, report, states);
  if (!report) return summary;
  const results = report.results.map(wireResult);
  return {
    ...summary,
    output_bytes: Buffer.byteLength(JSON.stringify(results)),
    results,
    ...(report.panels.length > 0 ? { panels: report.panels } : {}),
    unmatched: report.unmatched ?? [],
  };
}

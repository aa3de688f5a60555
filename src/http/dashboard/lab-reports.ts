import type { DashboardSession } from '../../features/dashboard/service.ts';
import type { AppContext } from '../../features/context.ts';
import type { App } from '../app-type.ts';
import { DASHBOARD_ROUTE, field, type Guards } from './guard.ts';
import { postButton, statusPill, when } from './layout.ts';
import { html, type SafeHtml } from '../safe-html.ts';

/**
 * Lab reports on the dashboard's user page: the reports uploaded under the user's reference id,
 * each result with the reader's review marking (a result marked for review is never shown as
 * certain), the rows that matched no biomarker, and a button to read the file again. Every text
 * from a report goes through `row()`, which escapes each cell: report text never reaches the page
 * unescaped.
 */

/** How many of the reference id's newest reports the user page shows. */
export const LAB_REPORTS_ON_USER_PAGE = 5;

type Json = Record<string, unknown>;
type WireResult = {
  source: { name?: string; value?: string; units?: string };
  /** A scan's result names its body region (report_type dexa); a lab result has none. */
  biomarker: { key: string | null; display_name?: string; region?: string };
  interpretation: { flag: string | null };
  confidence: number;
  needs_review: boolean;
};
export type LabReportView = Json & {
  session_id: string;
  current_status: string;
  results?: WireResult[];
  unmatched?: { page: number; text: string; reason: string }[];
};

const text = (value: unknown) =>
  value === undefined || value === null || value === '' ? '—' : String(value);

/** A table row whose every cell is escaped; `marks` are trusted, already-built fragments. */
function row(cells: unknown[], marks: SafeHtml[] = []): SafeHtml {
  return html`<tr>${cells.map((cell) => html`<td>${text(cell)}</td>`)}${marks.map((mark) => html`<td>${mark}</td>`)}</tr>`;
}

function reviewMark(result: WireResult): SafeHtml {
  return result.needs_review ? statusPill('needs review', 'warn') : statusPill('read', 'ok');
}

function resultsTable(results: readonly WireResult[]): SafeHtml {
  if (results.length === 0) return html`<p class="muted">No results.</p>`;
  const head = html`<thead><tr><th>Test</th><th>Value</th><th>Units</th><th>Flag</th><th>Confidence</th><th>Review</th></tr></thead>`;
  const body = results.map((result) =>
    row(
      [
        // A scan measures one quantity at many regions: the region tells its rows apart.
        result.biomarker.region
          ? `${result.biomarker.display_name ?? result.source.name} — ${result.biomarker.region.replace(/_/g, ' ')}`
          : (result.biomarker.display_name ?? result.source.name),
        result.source.value,
        result.source.units,
        result.interpretation.flag,
        `${Math.round(result.confidence * 100)}%`,
      ],
      [reviewMark(result)],
    ),
  );
  return html`<table>${head}<tbody>${body}</tbody></table>`;
}

function unmatchedList(unmatched: NonNullable<LabReportView['unmatched']>): SafeHtml {
  if (unmatched.length === 0) return html``;
  return html`<p class="muted">Rows read but not taken as results (no value is taken from them):</p><table><thead><tr><th>Page</th><th>Printed</th><th>Why</th></tr></thead><tbody>${unmatched.map(
    (entry) => row([entry.page, entry.text, entry.reason]),
  )}</tbody></table>`;
}

export function labReportsCard(
  session: DashboardSession,
  reports: readonly LabReportView[],
  back: string,
): SafeHtml {
  if (reports.length === 0) return html``;
  const items = reports.map((report) => {
    const review = (report.results ?? []).filter((result) => result.needs_review).length;
    const tone =
      report.current_status === 'failed' ? 'bad' : report.current_status === 'processing' ? 'plain' : 'ok';
    const heading = html`<h3>Session <span class="mono">${report.session_id}</span> ${statusPill(report.current_status, tone)}${
      review > 0 && html` ${statusPill(`${review} to review`, 'warn')}`
    }</h3><p class="muted">Uploaded ${when(typeof report.uploaded_at === 'string' ? report.uploaded_at : null)} \u00b7 report date ${text(report.report_date)} \u00b7 ${text(report.lab_name)}</p>`;
    const reprocess =
      report.current_status === 'processing'
        ? ''
        : postButton(
            session,
            `/dashboard/lab-reports/${encodeURIComponent(report.session_id)}/reprocess`,
            'Read again',
            {
              fields: { back },
            },
          );
    return html`${heading}${resultsTable(report.results ?? [])}${unmatchedList(report.unmatched ?? [])}${reprocess}`;
  });
  return html`<section class="card"><h2>Lab reports of this reference id</h2>${items}</section>`;
}

export function registerLabReportActions(scope: App, ctx: AppContext, guards: Guards) {
  scope.post(
    '/dashboard/lab-reports/:session_id/reprocess',
    DASHBOARD_ROUTE,
    guards.developerAction('/dashboard/users', async (request, session, form) => {
      const { session_id: sessionId } = request.params as { session_id: string };
      await ctx.labReports.reprocess(session.developer, sessionId);
      await ctx.dashboard.audit(session, { action: 'lab-report.reprocess', target: sessionId });
      // Back to the user page it was asked from; anything else goes to the users list.
      const back = field(form, 'back');
      return {
        redirect: /^\/dashboard\/users\/[\w-]+$/.test(back) ? back : '/dashboard/users',
        notice: `Lab report ${sessionId} is being read again; its results stay until the new read is stored.`,
      };
    }),
  );
}

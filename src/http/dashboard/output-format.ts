import type { AppContext } from '../../features/context.ts';
import { MEDIA_TYPES, OUTPUT_FORMATS, type OutputFormat } from '../../features/output-formats/formats.ts';
import type { App } from '../app-type.ts';
import { DASHBOARD_ROUTE, field, type Guards, sendPage } from './guard.ts';
import { csrfField, renderDashboardPage } from './layout.ts';
import { html } from '../safe-html.ts';

/**
 * The developer’s output format on the dashboard (reached from the Webhooks page, which it belongs
 * under: the nav stays one line at 1280 px): the current one and a form to choose another
 * (the same service as `PUT /v2/output-format`). Every text goes through `html`, which escapes it.
 */

const EXPLAINED: Record<OutputFormat, string> = {
  json: 'The JSON payload of each event (the default).',
  fhir: 'Data events (activity, body, daily, hormone, menstruation, nutrition, sleep) and athlete events as a FHIR R4 Bundle. Other events stay JSON.',
  fit: 'Activity events as the provider’s original FIT file (Wahoo, Suunto and Polar keep one; not Garmin yet); other events, and activities without a file, go as JSON, saying why.',
};

export function registerOutputFormatPages(scope: App, ctx: AppContext, guards: Guards) {
  const back = '/dashboard/output-format';

  scope.get(
    back,
    DASHBOARD_ROUTE,
    guards.developerPage(async (_request, reply, session, flash) => {
      const current = (await ctx.outputFormats.get(session.developer)).output_format;
      const choices = OUTPUT_FORMATS.map(
        (format) =>
          html`<div><input type="radio" id="format-${format}" name="output_format" value="${format}"${format === current ? html` checked` : ''}> <label for="format-${format}"><strong>${format}</strong> (<code>${MEDIA_TYPES[format]}</code>): ${EXPLAINED[format]}</label></div>`,
      );
      const body = html`<section class="card"><h2>Output format</h2>
<p>Your events are delivered as <strong>${current}</strong>. Every delivery says its format in the <code>tributary-output-format</code> header; one that could not take the chosen format says why in <code>tributary-output-format-fallback</code>.</p>
<form method="post" action="${back}">${csrfField(session)}<fieldset><legend>Deliver events as</legend>${choices}</fieldset>
<button type="submit" class="primary">Save format</button></form></section>`;
      return sendPage(
        reply,
        200,
        renderDashboardPage({ session, page: 'webhooks', title: 'Output format', body, flash }),
      );
    }),
  );

  scope.post(
    back,
    DASHBOARD_ROUTE,
    guards.developerAction(back, async (_request, session, form) => {
      const chosen = field(form, 'output_format');
      const view = await ctx.outputFormats.set(session.developer, chosen);
      await ctx.dashboard.audit(session, { action: 'output-format.set', target: view.output_format });
      return { redirect: back, notice: `Events are now delivered as ${view.output_format}.` };
    }),
  );
}

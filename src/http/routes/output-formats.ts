// The developer's output format (the vendor's per-environment processing type, `json | fit |
// fhir`, which it sets through its Admin API: docs/vendor-spec-deviations.md#output-formats).
// Tributary exposes it beside the data API with the developer's own keys, as it does the
// lab-reports version pin (`/v2/reports/api-version`).
import type { AppContext } from '../../features/context.ts';
import { OutputFormatBody, OutputFormatView } from '../../features/output-formats/schemas.ts';
import type { App } from '../app-type.ts';

const tags = ['webhooks'];
const config = { auth: 'developer' as const };

export function registerOutputFormatRoutes(app: App, ctx: AppContext) {
  app.get(
    '/v2/output-format',
    {
      config,
      schema: {
        tags,
        summary: 'The format your events are delivered in (json, fhir or fit)',
        response: { 200: OutputFormatView },
      },
    },
    async (request) => ctx.outputFormats.get(request.developer),
  );

  app.put(
    '/v2/output-format',
    {
      config,
      schema: {
        tags,
        summary: 'Choose the format your events are delivered in',
        description:
          'Applies to events delivered from about a second later (each delivery worker remembers a format for 1 s). ' +
          'fhir: data events of the types the FHIR export maps and athlete events become a FHIR R4 Bundle of type collection ' +
          '(application/fhir+json); fit: an activity event of one activity becomes the provider’s original FIT file where one is kept. ' +
          'Every other event is sent as JSON with `tributary-output-format: json` and `tributary-output-format-fallback` naming why. ' +
          'An unknown format is a 400 naming output_format.',
        body: OutputFormatBody,
        response: { 200: OutputFormatView },
      },
    },
    async (request) => ctx.outputFormats.set(request.developer, request.body.output_format),
  );
}

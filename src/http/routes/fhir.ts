// FHIR R4 out: searches of a person's Observations, `$everything`, and the bulk export (FHIR Bulk
// Data Access). Thin: the fhir-export service decides. Bodies are FHIR JSON
// (application/fhir+json); errors stay problem+json like every route (docs/fhir.md#errors).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../features/context.ts';
import {
  EverythingParams,
  EverythingQuery,
  ExportParams,
  FileParams,
  FileQuery,
  KickOffQuery,
  ManifestSchema,
  NdjsonSchema,
  ObservationQuery,
  OperationOutcomeSchema,
  SearchBundleSchema,
} from '../../features/fhir-export/schemas.ts';
import type { Query } from '../../features/fhir-export/search.ts';
import { FHIR_JSON } from '../../features/fhir-export/service.ts';
import type { App } from '../app-type.ts';

const tags = ['fhir'];
const config = { auth: 'developer' as const };

// FHIR R4 issue types (https://hl7.org/fhir/R4/valueset-issue-type.html) of the statuses these routes answer.
const ISSUE_TYPE: Record<number, string> = {
  400: 'invalid',
  401: 'login',
  403: 'forbidden',
  404: 'not-found',
  410: 'expired',
  429: 'throttled',
};

/**
 * Errors are problem+json (one error vocabulary); a client that accepts application/fhir+json and
 * not problem+json gets the same error as a FHIR OperationOutcome, with the same status.
 */
async function outcomeForFhirClients(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
  if (!String(reply.getHeader('content-type') ?? '').startsWith('application/problem+json')) return payload;
  const accept = String(request.headers.accept ?? '');
  if (!accept.includes('application/fhir+json') || accept.includes('application/problem+json'))
    return payload;
  const problem = JSON.parse(payload) as { title?: string; detail?: string; type?: string };
  reply.header('content-type', FHIR_JSON);
  return JSON.stringify({
    resourceType: 'OperationOutcome',
    issue: [
      {
        severity: 'error',
        code: ISSUE_TYPE[reply.statusCode] ?? (reply.statusCode >= 500 ? 'exception' : 'processing'),
        details: { text: problem.title ?? 'error' },
        diagnostics: problem.detail ?? '',
      },
    ],
  });
}
const plainJson = () => (data: unknown) => JSON.stringify(data);
const fhirJson = (schema: object) => ({
  description: 'FHIR R4 JSON',
  content: { 'application/fhir+json': { schema } },
});

const READ_NOTES =
  'Serves what is stored (it does not fetch from the provider): records come in through backfills, data reads ' +
  'and provider webhooks. Codes and units are listed in docs/fhir.md. A user of another developer is a 404; a bad ' +
  'search parameter (unknown ones included) a 400 problem naming it.';

export function registerFhirRoutes(app: App, ctx: AppContext) {
  app.get(
    '/v2/fhir/Observation',
    {
      config,
      onSend: outcomeForFhirClients,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Search one user’s Observations: a FHIR searchset Bundle, paged',
        description: READ_NOTES,
        querystring: ObservationQuery,
        response: { 200: fhirJson(SearchBundleSchema) },
      },
    },
    async (request, reply) => {
      const bundle = await ctx.fhir.search(request.developer, request.query as Query);
      return (reply as FastifyReply).header('content-type', FHIR_JSON).send(bundle);
    },
  );

  app.get(
    '/v2/fhir/Patient/:user_id/$everything',
    {
      config,
      onSend: outcomeForFhirClients,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'One user’s whole record: the Patient, every Observation, Device and Provenance, paged',
        description: READ_NOTES,
        params: EverythingParams,
        querystring: EverythingQuery,
        response: { 200: fhirJson(SearchBundleSchema) },
      },
    },
    async (request, reply) => {
      const bundle = await ctx.fhir.everything(
        request.developer,
        request.params.user_id,
        request.query as Query,
      );
      return (reply as FastifyReply).header('content-type', FHIR_JSON).send(bundle);
    },
  );

  const outcome = (diagnostics: string) => ({
    resourceType: 'OperationOutcome',
    issue: [{ severity: 'information', code: 'informational', diagnostics }],
  });
  const KICK_OFF_NOTES =
    'FHIR Bulk Data kick-off: send `Prefer: respond-async` (without it, 400). Answers 202 with the status URL in ' +
    'Content-Location; poll it. Exports what is stored, one file per user and resource type. `_type` limits the ' +
    'resource types, `_since` the records to those stored or changed since an instant.';
  const accepted = async (reply: FastifyReply, started: { statusUrl: string }) =>
    reply
      .code(202)
      .header('content-location', started.statusUrl)
      .header('content-type', FHIR_JSON)
      .send(outcome(`Export started: poll ${started.statusUrl}`));

  app.get(
    '/v2/fhir/$export',
    {
      config,
      onSend: outcomeForFhirClients,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Start a bulk export of every user of yours (FHIR Bulk Data; 202 + Content-Location)',
        description: KICK_OFF_NOTES,
        querystring: KickOffQuery,
        response: { 202: fhirJson(OperationOutcomeSchema) },
      },
    },
    async (request, reply) =>
      accepted(
        reply as FastifyReply,
        await ctx.fhir.export.kickOff(request.developer, {
          userId: null,
          query: request.query as Query,
          prefer: [request.headers.prefer ?? []].flat().join(','),
          requestUrl: `${ctx.config.publicUrl}${request.url}`,
        }),
      ),
  );

  app.get(
    '/v2/fhir/Patient/:user_id/$export',
    {
      config,
      onSend: outcomeForFhirClients,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Start a bulk export of one user (FHIR Bulk Data; 202 + Content-Location)',
        description: KICK_OFF_NOTES,
        params: EverythingParams,
        querystring: KickOffQuery,
        response: { 202: fhirJson(OperationOutcomeSchema) },
      },
    },
    async (request, reply) =>
      accepted(
        reply as FastifyReply,
        await ctx.fhir.export.kickOff(request.developer, {
          userId: request.params.user_id,
          query: request.query as Query,
          prefer: [request.headers.prefer ?? []].flat().join(','),
          requestUrl: `${ctx.config.publicUrl}${request.url}`,
        }),
      ),
  );

  app.get(
    '/v2/fhir/$export-status/:export_id',
    {
      config,
      onSend: outcomeForFhirClients,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Poll a bulk export: 202 with X-Progress while it runs, then 200 with the manifest',
        description:
          'The manifest lists each file once, with a signed link that works for FHIR_EXPORT_LINK_MINUTES without ' +
          'credentials (requiresAccessToken: false); poll again for fresh links. Files are deleted ' +
          'FHIR_EXPORT_RETENTION_HOURS after the export completes; then, and after a cancel, this is a 404.',
        params: ExportParams,
        response: {
          200: { description: 'The manifest', content: { 'application/json': { schema: ManifestSchema } } },
          202: fhirJson(OperationOutcomeSchema),
        },
      },
    },
    async (request, reply) => {
      const status = await ctx.fhir.export.status(request.developer, request.params.export_id);
      const plain = reply as FastifyReply;
      if (status.state === 'completed') {
        return plain.header('content-type', 'application/json; charset=utf-8').send(status.manifest);
      }
      return plain
        .code(202)
        .header('x-progress', status.progress)
        .header('retry-after', String(status.retryAfterSeconds))
        .header('content-type', FHIR_JSON)
        .send(outcome(status.progress));
    },
  );

  app.delete(
    '/v2/fhir/$export-status/:export_id',
    {
      config,
      onSend: outcomeForFhirClients,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Cancel a bulk export (or delete a finished one’s files now)',
        params: ExportParams,
        response: { 202: fhirJson(OperationOutcomeSchema) },
      },
    },
    async (request, reply) => {
      await ctx.fhir.export.cancel(request.developer, request.params.export_id);
      return (reply as FastifyReply)
        .code(202)
        .header('content-type', FHIR_JSON)
        .send(outcome('Export cancelled; its files are deleted'));
    },
  );

  app.get(
    '/v2/fhir/$export-files/:export_id/:user_id/:type',
    {
      config: { auth: 'none' as const },
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'One file of an export manifest (NDJSON), through its signed, expiring link',
        description:
          'No credentials: the link is the authorisation. A link with a bad signature is a 403, an expired one a 410.',
        params: FileParams,
        querystring: FileQuery,
        response: {
          200: { description: 'NDJSON', content: { 'application/fhir+ndjson': { schema: NdjsonSchema } } },
        },
      },
    },
    async (request, reply) => {
      const file = await ctx.fhir.export.file({
        exportId: request.params.export_id,
        userId: request.params.user_id,
        type: request.params.type,
        ...request.query,
      });
      const type =
        file.format === 'application/fhir+ndjson' ? 'application/fhir+ndjson' : 'application/x-ndjson';
      return (reply as FastifyReply).header('content-type', type).send(file.body);
    },
  );
}

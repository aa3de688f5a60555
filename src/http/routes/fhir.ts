// FHIR R4 out: searches of a person's Observations, `$everything`, and the bulk export (FHIR Bulk
// Data Access). Thin: the fhir-export service decides. Bodies are FHIR JSON
// (application/fhir+json); errors stay problem+json like every route (docs/fhir.md#errors).
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../features/context.ts';
import {
  EverythingParams,
  EverythingQuery,
  ObservationQuery,
  SearchBundleSchema,
} from '../../features/fhir-export/schemas.ts';
import type { Query } from '../../features/fhir-export/search.ts';
import { FHIR_JSON } from '../../features/fhir-export/service.ts';
import type { App } from '../app-type.ts';

const tags = ['fhir'];
const config = { auth: 'developer' as const };
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
}

// The data API's routes: thin, everything is decided by the data service. Data responses are
// streamed, so the response schemas document the shapes (OpenAPI) without driving the
// serializer; the small JSON answers are written with JSON.stringify.
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../features/context.ts';
import type { App } from '../app-type.ts';
import { type DataTypeName, dataTypeNames, modelSchemas } from '../../model/index.ts';
import type { RawReadQuery } from '../../features/data/params.ts';
import {
  AthleteQuery,
  AthleteResponse,
  readQuery,
  readResponse,
  V3Params,
  V3Query,
  V3Response,
} from '../../features/data/schemas.ts';
import type { ReadResult } from '../../features/data/reads.ts';

const tags = ['data'];
const config = { auth: 'developer' as const };
const plainJson = () => (data: unknown) => JSON.stringify(data);

const READ_NOTES =
  'Budgeted per user_id: cost = end_date − start_date in days, at least 1 (an empty window costs 1); r1 rejects a window over 1,825 days; r2 caps ' +
  'the cost per user and UTC hour at 6,000 (or the dev-id’s limit); 429 names the rule in X-Service-RateLimit-Rule. ' +
  'Users still pending authentication: 400 (they have no data and are not budgeted). Inactive users can be read ' +
  'with to_webhook=false. A provider failure is a 503 with Retry-After.';

function send(reply: FastifyReply, result: ReadResult) {
  reply.headers(result.headers);
  return reply.code(result.status).send(result.body);
}

export function registerDataRoutes(app: App, ctx: AppContext) {
  // The model schemas are shared components: registered once, referenced by $id.
  for (const schema of modelSchemas) {
    const id = (schema as { $id?: string }).$id;
    if (id && !app.getSchema(id)) app.addSchema(schema);
  }

  for (const type of dataTypeNames) registerRead(app, ctx, type);

  app.get(
    '/v2/athlete',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'The user’s profile at the provider (cost 1)',
        description: READ_NOTES,
        querystring: AthleteQuery,
        response: { 200: AthleteResponse },
      },
    },
    async (request, reply) =>
      send(
        reply,
        await ctx.data.readAthlete(request.developer, {
          userId: request.query.user_id,
          query: request.query,
        }),
      ),
  );

  app.get(
    '/v3/connections/:user_id/:type',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Historical data of one type for a connection: {connection, data, type}',
        description: `${READ_NOTES} Same parameters and budget as the v2 reads; to_webhook defaults to false here.`,
        params: V3Params,
        querystring: V3Query,
        response: { 200: V3Response },
      },
    },
    async (request, reply) =>
      send(
        reply,
        await ctx.data.read(request.developer, {
          type: request.params.type as DataTypeName,
          userId: request.params.user_id,
          query: request.query,
          version: 'v3',
        }),
      ),
  );
}

function registerRead(app: App, ctx: AppContext, type: DataTypeName) {
  app.get(
    `/v2/${type}`,
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: `Historical ${type} data for a date range`,
        description: READ_NOTES,
        querystring: readQuery(type),
        response: { 200: readResponse(type) },
      },
    },
    async (request, reply) => {
      const query = request.query as { user_id: string } & RawReadQuery;
      return send(
        reply,
        await ctx.data.read(request.developer, { type, userId: query.user_id, query, version: 'v2' }),
      );
    },
  );
}

// The merged view's routes: a person's records across their connections, and the developer's
// merge settings. Thin: the merge service decides.
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../features/context.ts';
import type { App } from '../app-type.ts';
import {
  MergeSettingsBody,
  MergeSettingsResponse,
  PersonParams,
  PersonQuery,
  PersonResponse,
} from '../../features/merge/schemas.ts';

const tags = ['merged view'];
const config = { auth: 'developer' as const };
const plainJson = () => (data: unknown) => JSON.stringify(data);

const PERSON_NOTES =
  'A person is your active connections that share this reference_id. Each connection is charged as its own ' +
  'read of the same window would be (so a 429 names the connection over budget), and synced first. Every record ' +
  'carries `provenance`: the stored records it drew on and the rule that chose each field (docs/merge.md). ' +
  'No active connection with this reference_id: 404.';

export function registerPeopleRoutes(app: App, ctx: AppContext) {
  app.get(
    '/v3/people/:reference_id/:type',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'One person’s merged data of one type: {person, data, type}',
        description: PERSON_NOTES,
        params: PersonParams,
        querystring: PersonQuery,
        response: { 200: PersonResponse },
      },
    },
    async (request, reply) => {
      const result = await ctx.merge.read(request.developer, {
        referenceId: request.params.reference_id,
        type: request.params.type,
        query: request.query,
      });
      // The body is serialized as it is (plainJson): the schema documents it.
      const plain = reply as FastifyReply;
      plain.headers(result.headers);
      return plain.code(result.status).send(result.body);
    },
  );

  app.get(
    '/v3/merge-priorities',
    {
      config,
      schema: {
        tags,
        summary: 'Your merge settings: source order per metric family, and merged events on or off',
        response: { 200: MergeSettingsResponse },
      },
    },
    async (request) => ctx.merge.settings(request.developer.id),
  );

  app.put(
    '/v3/merge-priorities',
    {
      config,
      schema: {
        tags,
        summary: 'Set your source order per metric family (omitted families keep theirs) and merged events',
        description:
          'Each order lists provider ids and device kinds, best first; a source takes the place of whichever of its ' +
          'two names comes first, and sources it does not name follow in the default device order. Unknown families, ' +
          'names and duplicates are refused with 400.',
        body: MergeSettingsBody,
        response: { 200: MergeSettingsResponse },
      },
    },
    async (request) => ctx.merge.updateSettings(request.developer.id, request.body),
  );
}

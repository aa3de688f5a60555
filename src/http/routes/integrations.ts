import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { AppContext } from '../../features/context.ts';
import { notFound } from '../../core/errors.ts';
import type { App } from '../app-type.ts';
import { providerIconSvg } from '../../provider-access/icons.ts';

const tags = ['integrations'];

const IntegrationsResponse = Type.Object({
  status: Type.Literal('success'),
  providers: Type.Array(Type.String(), { description: 'Web (OAuth) providers this deployment can connect' }),
  sdk_resource: Type.Array(Type.String(), { description: 'Sources connected through the mobile SDKs' }),
  sdk_providers: Type.Array(Type.String(), { description: 'Same as sdk_resource (newer name)' }),
});

const IntegrationProvider = Type.Object({
  provider: Type.String(),
  name: Type.String(),
  icon: Type.String({ description: 'URL of the icon, served by this deployment' }),
  setup: Type.String({
    description:
      'BUILT_IN (needs nothing), SDK (mobile SDK), API_KEYS_MANAGED (credentials configured), ' +
      'NOT_CONFIGURED (no credentials: listed, not enabled), DISABLED (switched off by the operator)',
  }),
  enabled: Type.Boolean(),
  sdk: Type.Boolean(),
  types: Type.Record(Type.String(), Type.Boolean()),
  scopes: Type.Array(Type.String()),
  writes_planned_workouts: Type.Boolean(),
  history_days: Type.Union([Type.Integer(), Type.Null()]),
});

const DetailedQuery = Type.Object({
  sdk: Type.Optional(Type.Boolean({ default: false, description: 'Include SDK-based integrations' })),
});

function devIdOf(request: FastifyRequest): string | undefined {
  const query = request.query as Record<string, unknown>;
  for (const value of [request.headers['dev-id'], request.headers.dev_id, query['dev-id'], query.dev_id]) {
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

export function registerIntegrationRoutes(app: App, ctx: AppContext) {
  app.get(
    '/v2/integrations',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: 'Providers this deployment can connect',
        response: { 200: IntegrationsResponse },
      },
    },
    async () => {
      const { providers, sdk } = ctx.integrations.list();
      return { status: 'success' as const, providers, sdk_resource: sdk, sdk_providers: sdk };
    },
  );

  app.get(
    '/v2/integrations/detailed',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: 'Every provider with setup, icon and data types',
        description:
          'Public. With a dev-id (header or query) the list is narrowed to the providers enabled for that developer; ' +
          'a dev-id that names no active developer gets an empty list, as a developer with nothing enabled does.',
        querystring: DetailedQuery,
        response: {
          200: Type.Object({ status: Type.Literal('success'), providers: Type.Array(IntegrationProvider) }),
        },
      },
    },
    async (request) => {
      const developerId = devIdOf(request);
      // An unknown dev-id narrows to nothing (never the unfiltered list, never "no such developer").
      const providers = await ctx.integrations.detailed({
        sdk: request.query.sdk ?? false,
        ...(developerId === undefined ? {} : { developerId }),
      });
      return { status: 'success' as const, providers };
    },
  );

  app.get(
    '/v2/static/icons/:file',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: 'Provider icon (SVG)',
        params: Type.Object({ file: Type.String() }),
        hide: true,
      } as object,
    },
    async (request: FastifyRequest<{ Params: { file: string } }>, reply) => {
      const match = /^([a-z0-9_]+)\.svg$/.exec(request.params.file);
      const provider = match?.[1] ? ctx.providers.get(match[1]) : undefined;
      if (!provider) throw notFound(`no icon ${request.params.file}`);
      return reply
        .type('image/svg+xml')
        .header('cache-control', 'public, max-age=86400')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
        .send(providerIconSvg(provider.declaration));
    },
  );
}

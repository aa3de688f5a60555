// Provider notifications arrive at /providers/{provider}/webhook; the POST route keeps the raw
// body (a content-type parser of its own, in its own scope) because signatures are over the exact
// bytes the provider sent.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { AppContext } from '../../features/context.ts';
import { callbackPath } from '../../features/connectors/subscriptions.ts';
import { verifyTokenFor } from '../../provider-kit/signatures.ts';
import type { App } from '../app-type.ts';

const NOTIFICATION_BODY_LIMIT = 256 * 1024;

const Params = Type.Object({ provider: Type.String() });

const NotificationAnswer = Type.Object({
  status: Type.Literal('success'),
  queued: Type.Optional(Type.Integer({ description: 'Refetches queued (signed notifications only)' })),
  duplicate: Type.Optional(Type.Boolean({ description: 'Already taken in: nothing queued again' })),
});

/** The providers whose notifications carry no signature (their connector says how to coalesce them). */
function unsignedSenders(ctx: AppContext): string {
  return ctx.providers
    .list()
    .filter(({ connector }) => connector?.notifications?.unsigned)
    .map(({ declaration }) => declaration.name)
    .join(', ');
}

export async function registerNotificationRoutes(app: App, ctx: AppContext) {
  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    // Only here: the body stays the Buffer the provider sent, whatever its content type.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: NOTIFICATION_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    const path = callbackPath(':provider');
    scope.get(
      path,
      {
        config: { auth: 'none' },
        schema: {
          tags: ['provider notifications'],
          summary: 'Subscription handshake from a provider (a challenge to echo)',
          params: Params,
        },
      },
      async (request) => {
        const query = new URLSearchParams(request.url.split('?')[1] ?? '');
        const provider = request.params.provider.toUpperCase();
        return ctx.connectors.notifications.handshake(provider, query, verifyTokenFor(ctx.config, provider));
      },
    );
    scope.post(
      path,
      {
        config: { auth: 'none' },
        schema: {
          tags: ['provider notifications'],
          summary: 'A provider notification: verified on the raw body, acknowledged at once, fetched later',
          description:
            'Signed notifications are queued once (a replay answers `duplicate: true`, `queued: 0`). ' +
            `Unsigned ones (${unsignedSenders(ctx)}) are taken only for connected accounts, coalesced to one pending ` +
            'refetch per account and data kind, and limited per sender address (429 past it); their ' +
            'answer never says what was queued. A provider not configured here: 404.',
          params: Params,
          response: { 200: NotificationAnswer },
        },
      },
      async (request) => {
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const receipt = await ctx.connectors.notifications.receive(request.params.provider, {
          headers: request.headers,
          rawBody,
          source: request.ip,
          query: new URLSearchParams(request.url.split('?')[1] ?? ''),
        });
        return { status: 'success' as const, ...receipt };
      },
    );
  });
}

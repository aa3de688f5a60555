import { randomUUID } from 'node:crypto';
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import { invalidParameter } from '../../core/errors.ts';
import type { ProviderCatalog, ResolvedProvider } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import { parseRedirectUrl, parseReferenceId } from '../connections/redirects.ts';
import type { ConnectionsService } from '../connections/service.ts';
import type { IntegrationsService } from '../integrations/service.ts';
import { isUuid } from '../users/service.ts';
import { type Language, resolveLanguage } from '../../core/languages.ts';
import * as repo from './repo.ts';

export const WIDGET_SESSION_TTL_SECONDS = 900;
export const widgetPath = (sessionId: string) => `/widget/session/${sessionId}`;

export type WidgetSessionInput = {
  providers?: string | string[] | null | undefined;
  language?: string | null | undefined;
  reference_id?: string | null | undefined;
  auth_success_redirect_url?: string | null | undefined;
  auth_failure_redirect_url?: string | null | undefined;
};

export type WidgetView =
  | { state: 'open'; language: Language; sessionId: string; providers: ResolvedProvider[] }
  | { state: 'expired' | 'completed' | 'unknown'; language: Language };

export function createWidgetService(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  providers: ProviderCatalog;
  integrations: IntegrationsService;
  connections: ConnectionsService;
}) {
  const { db, clock, config, providers, integrations, connections } = deps;

  // A connection made from this widget closes its session (in the activating transaction).
  connections.onConnected(async (trx, connection) => {
    if (connection.widgetSessionId)
      await repo.completeWidgetSession(trx, connection.widgetSessionId, clock.now());
  });

  /** `"A, b"` or `["A","B"]` -> `["A","B"]` (provider ids, any case); unknown ids are a 400. */
  function parseProviders(input: WidgetSessionInput['providers']): string[] | null {
    if (input === undefined || input === null) return null;
    const items = (Array.isArray(input) ? input : input.split(','))
      .map((item) => item.trim())
      .filter(Boolean);
    if (items.length === 0) return null;
    const ids: string[] = [];
    for (const item of items) {
      const provider = providers.get(item);
      if (!provider) throw invalidParameter('providers', `unknown provider "${item}"`);
      if (provider.declaration.authKind === 'sdk') {
        throw invalidParameter('providers', `${provider.id} connects through the mobile SDK, not the widget`);
      }
      if (!ids.includes(provider.id)) ids.push(provider.id);
    }
    return ids;
  }

  async function load(sessionId: string) {
    if (!isUuid(sessionId))
      return { session: undefined, view: { state: 'unknown', language: 'en' } as WidgetView };
    const session = await repo.findWidgetSession(db, sessionId.toLowerCase());
    if (!session) return { session: undefined, view: { state: 'unknown', language: 'en' } as WidgetView };
    const language = resolveLanguage(session.language);
    if (session.completed_at)
      return { session: undefined, view: { state: 'completed', language } as WidgetView };
    if (session.expires_at.getTime() <= clock.now().getTime()) {
      return { session: undefined, view: { state: 'expired', language } as WidgetView };
    }
    // Enabled for the developer now (not when the session was made), in the session's order.
    const enabled = (await integrations.enabledFor(session.developer_id)).filter(
      (provider) => provider.declaration.authKind !== 'sdk',
    );
    const shown = session.providers
      ? session.providers.flatMap((id) => enabled.filter((provider) => provider.id === id))
      : enabled;
    return {
      session,
      view: { state: 'open', language, sessionId: session.id, providers: shown } as WidgetView,
    };
  }

  return {
    async createSession(developerId: string, input: WidgetSessionInput) {
      const row = await repo.insertWidgetSession(db, {
        id: randomUUID(),
        developer_id: developerId,
        providers: parseProviders(input.providers),
        language: resolveLanguage(input.language),
        reference_id: parseReferenceId(input.reference_id),
        success_redirect_url: parseRedirectUrl('auth_success_redirect_url', input.auth_success_redirect_url),
        failure_redirect_url: parseRedirectUrl('auth_failure_redirect_url', input.auth_failure_redirect_url),
        expires_at: new Date(clock.now().getTime() + WIDGET_SESSION_TTL_SECONDS * 1000),
        completed_at: null,
      });
      return {
        sessionId: row.id,
        url: `${config.publicUrl}${widgetPath(row.id)}`,
        expiresIn: WIDGET_SESSION_TTL_SECONDS,
      };
    },

    async view(sessionId: string): Promise<WidgetView> {
      return (await load(sessionId)).view;
    },

    /** The end user picked a provider: the same auth-link flow, tied to this widget session. */
    async choose(
      sessionId: string,
      providerId: string,
    ): Promise<{ location: string } | { view: WidgetView }> {
      const { session, view } = await load(sessionId);
      if (!session || view.state !== 'open') return { view };
      const provider = view.providers.find((candidate) => candidate.id === providerId.toUpperCase());
      if (!provider) return { view };
      const link = await connections.createAuthLink({
        developerId: session.developer_id,
        resource: provider.id,
        referenceId: session.reference_id,
        language: session.language,
        successRedirectUrl: session.success_redirect_url,
        failureRedirectUrl: session.failure_redirect_url,
        widgetSessionId: session.id,
      });
      return { location: link.authUrl };
    },
  };
}

export type WidgetService = ReturnType<typeof createWidgetService>;

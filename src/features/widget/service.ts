import { createHmac } from 'node:crypto';
import { newUuid } from '../../core/ids.ts';
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import { invalidParameter } from '../../core/errors.ts';
import type { ProviderCatalog, ResolvedProvider } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import { parseRedirectUrl, parseReferenceId } from '../connecting/redirects.ts';
import type { ConnectingService } from '../connecting/service.ts';
import type { IntegrationsService } from '../integrations/service.ts';
import { findDeveloper } from '../developers/repo.ts';
import { isUuid } from '../connections/service.ts';
import { constantTimeEqual } from '../../provider-kit/signatures.ts';
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
  | {
      state: 'open';
      language: Language;
      sessionId: string;
      /** Goes with the page's form; a post without it starts nothing. */
      csrfToken: string;
      providers: ResolvedProvider[];
    }
  /** `unavailable`: the developer is suspended (the page says nothing about why). */
  | { state: 'expired' | 'completed' | 'unknown' | 'unavailable'; language: Language };

/** What a post to the picker leads to: the provider's consent page, a page again, or a refusal. */
export type WidgetChoice =
  { location: string } | { view: WidgetView } | { refused: 'csrf'; language: Language };

export function createWidgetService(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  providers: ProviderCatalog;
  integrations: IntegrationsService;
  connecting: ConnectingService;
}) {
  const { db, clock, config, providers, integrations, connecting } = deps;

  // A connection made from this widget closes its session (in the activating transaction).
  connecting.onConnected(async (trx, connection) => {
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

  /**
   * The form token of a session: an HMAC of its id under the service key, so every process
   * derives the same one and nothing more is stored.
   */
  const csrfTokenFor = (sessionId: string) =>
    createHmac('sha256', config.encryptionKey).update(`widget-form:${sessionId}`).digest('base64url');

  /** The session and what its page shows; `trx` when the caller holds the session's lock. */
  async function load(sessionId: string, trx: Db = db, lock = false) {
    const none = (state: 'unknown') => ({
      session: undefined,
      view: { state, language: 'en' } as WidgetView,
    });
    if (!isUuid(sessionId)) return none('unknown');
    const session = await (lock ? repo.lockWidgetSession : repo.findWidgetSession)(
      trx,
      sessionId.toLowerCase(),
    );
    if (!session) return none('unknown');
    const language = resolveLanguage(session.language);
    const closed = (state: 'completed' | 'expired' | 'unavailable') => ({
      session: undefined,
      view: { state, language } as WidgetView,
    });
    if ((await findDeveloper(trx, session.developer_id))?.status !== 'active') return closed('unavailable');
    if (session.completed_at) return closed('completed');
    if (session.expires_at.getTime() <= clock.now().getTime()) return closed('expired');
    // Enabled for the developer now (not when the session was made), in the session's order.
    const enabled = (await integrations.enabledFor(session.developer_id, trx)).filter(
      (provider) => provider.declaration.authKind !== 'sdk',
    );
    const shown = session.providers
      ? session.providers.flatMap((id) => enabled.filter((provider) => provider.id === id))
      : enabled;
    return {
      session,
      view: {
        state: 'open',
        language,
        sessionId: session.id,
        csrfToken: csrfTokenFor(session.id),
        providers: shown,
      } as WidgetView,
    };
  }

  return {
    async createSession(developerId: string, input: WidgetSessionInput) {
      // A session that names no providers offers the developer's dashboard selection (if any),
      // fixed as the session is made so an open page does not change under the end user.
      const named = parseProviders(input.providers);
      const row = await repo.insertWidgetSession(db, {
        id: newUuid(),
        developer_id: developerId,
        providers: named ?? (await repo.findProviderSelection(db, developerId)) ?? null,
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

    /** The dashboard's selection: provider ids, or null when the widget offers every enabled provider. */
    async providerSelection(developerId: string): Promise<string[] | null> {
      return (await repo.findProviderSelection(db, developerId)) ?? null;
    },

    /**
     * Sets the selection from provider ids (any case; unknown or SDK-only ids are a 400 naming
     * them); an empty list forgets it, since a widget offering nothing helps nobody.
     */
    async setProviderSelection(
      developerId: string,
      providerIds: readonly string[],
    ): Promise<string[] | null> {
      const ids = parseProviders([...providerIds]);
      await repo.saveProviderSelection(db, developerId, ids, clock.now());
      return ids;
    },

    async view(sessionId: string): Promise<WidgetView> {
      return (await load(sessionId)).view;
    },

    /**
     * The end user picked a provider: the same auth-link flow, tied to this widget session. The
     * session's row is locked while the attempt is made, so however many posts arrive at once,
     * each takes over the previous attempt's pending user (at most one per session).
     */
    async choose(sessionId: string, providerId: string, csrfToken: string): Promise<WidgetChoice> {
      return db.transaction().execute(async (trx): Promise<WidgetChoice> => {
        const { session, view } = await load(sessionId, trx, true);
        if (!session || view.state !== 'open') return { view };
        if (!constantTimeEqual(csrfToken, view.csrfToken))
          return { refused: 'csrf', language: view.language };
        const provider = view.providers.find((candidate) => candidate.id === providerId.toUpperCase());
        if (!provider) return { view };
        const link = await connecting.createAuthLink(
          {
            developerId: session.developer_id,
            resource: provider.id,
            referenceId: session.reference_id,
            language: session.language,
            successRedirectUrl: session.success_redirect_url,
            failureRedirectUrl: session.failure_redirect_url,
            widgetSessionId: session.id,
          },
          trx,
        );
        return { location: link.authUrl };
      });
    },
  };
}

export type WidgetService = ReturnType<typeof createWidgetService>;

import type { Config } from '../core/config.ts';
import { ConfigError } from '../core/config.ts';
import type { Connector, OAuthDeclaration, Provider, ProviderDeclaration } from '../provider-kit/types.ts';
import { type ProviderDeclarationProblem, validateDeclaration } from '../provider-kit/validate.ts';
import { type ProviderId, providerRegistry } from '../providers/index.ts';
import { providerSettings } from './settings.ts';

/**
 * How the integrations list describes a provider's setup on this deployment:
 * `BUILT_IN` (needs nothing), `SDK` (mobile SDK), `API_KEYS_MANAGED` (client credentials
 * configured), `NOT_CONFIGURED` (no credentials), `DISABLED` (turned off by the operator).
 */
export type ProviderSetup = 'BUILT_IN' | 'SDK' | 'API_KEYS_MANAGED' | 'NOT_CONFIGURED' | 'DISABLED';

/** OAuth endpoints as this deployment calls them: hosted paths resolved, `<ID>_BASE_URL` applied. */
export type ResolvedOAuth = Omit<OAuthDeclaration, 'accountId' | 'revoke'> & {
  accountId: OAuthDeclaration['accountId'];
  revoke: OAuthDeclaration['revoke'];
};

export type ResolvedProvider = {
  id: ProviderId;
  declaration: ProviderDeclaration;
  connector: Connector | undefined;
  credentials: { clientId: string; clientSecret: string } | null;
  oauth: ResolvedOAuth | null;
  /** Usable on this deployment (before any per-developer choice). */
  enabled: boolean;
  setup: ProviderSetup;
  /** A declared provider URL as this deployment calls it (`<ID>_BASE_URL` applied). */
  resolveUrl(declared: string): string;
};

export type ProviderCatalog = {
  /** In registry order. */
  list(): ResolvedProvider[];
  /** By resource id, case-insensitive; undefined when unknown. */
  get(id: string): ResolvedProvider | undefined;
  /**
   * Resolves every provider again from the settings (after the operator's stored values changed:
   * stored-settings.ts). Callers look providers up on each use, so the next one sees the change.
   */
  reload(): void;
};

/**
 * Declared URLs point at the real provider; `<ID>_BASE_URL` sends every one of them (whatever
 * its host) to one other origin, keeping path and query. Paths starting with `/` are pages
 * Tributary hosts itself.
 */
function urlResolver(config: Config, base: URL | undefined) {
  const prefix = base ? `${base.origin}${base.pathname.replace(/\/+$/, '')}` : undefined;
  return (declared: string): string => {
    if (declared.startsWith('/')) return `${config.publicUrl}${declared}`;
    if (!prefix) return declared;
    const url = new URL(declared);
    return `${prefix}${url.pathname}${url.search}`;
  };
}

function resolveOAuth(oauth: OAuthDeclaration, resolve: (url: string) => string): ResolvedOAuth {
  const { accountId, revoke, ...rest } = oauth;
  return {
    ...rest,
    authorizeUrl: resolve(oauth.authorizeUrl),
    tokenUrl: resolve(oauth.tokenUrl),
    accountId: accountId?.from === 'userinfo' ? { ...accountId, url: resolve(accountId.url) } : accountId,
    revoke: revoke ? { ...revoke, url: resolve(revoke.url) } : undefined,
  };
}

function resolveProvider(config: Config, provider: Provider): ResolvedProvider {
  const { declaration } = provider;
  // validateDeclaration has checked that the id is the registry key, so it is a ProviderId.
  const id = declaration.id as ProviderId;
  const { credentials, enabled, baseUrl } = config.settings.forProvider(providerSettings, id);
  const resolveUrl = urlResolver(config, baseUrl);
  // A web provider is offered only with a connector that reads its data: a declaration alone
  // would hand out auth links to users who then never get any (a provider that is declared only
  // stays unavailable until it has one, whatever `<ID>_ENABLED` says).
  const connectable = declaration.authKind === 'sdk' || provider.connector?.data !== undefined;
  const switchedOn = connectable && (enabled ?? declaration.enabledByDefault);
  const usable = declaration.credentials === 'none' || credentials !== null;
  const setup: ProviderSetup = !switchedOn
    ? 'DISABLED'
    : declaration.authKind === 'sdk'
      ? 'SDK'
      : declaration.credentials === 'none'
        ? 'BUILT_IN'
        : credentials
          ? 'API_KEYS_MANAGED'
          : 'NOT_CONFIGURED';
  return {
    id,
    declaration,
    connector: provider.connector,
    credentials,
    oauth: declaration.oauth ? resolveOAuth(declaration.oauth, resolveUrl) : null,
    enabled: switchedOn && usable,
    setup,
    resolveUrl,
  };
}

/** Validates every declaration and the provider settings; a problem stops the boot. */
export function createProviderCatalog(
  config: Config,
  registry: Readonly<Record<string, Provider>> = providerRegistry,
): ProviderCatalog {
  const problems: ProviderDeclarationProblem[] = [];
  for (const [key, provider] of Object.entries(registry))
    problems.push(...validateDeclaration(key, provider));
  if (problems.length > 0) {
    throw new ConfigError(
      `invalid provider declarations:\n${problems.map((p) => `  ${p.provider}: ${p.problem}`).join('\n')}`,
    );
  }
  const resolveAll = () => Object.values(registry).map((provider) => resolveProvider(config, provider));
  let resolved = resolveAll();
  let byId = new Map(resolved.map((provider) => [provider.id, provider]));
  return {
    list: () => resolved,
    get: (id) => byId.get(id.toUpperCase() as ProviderId),
    reload() {
      const next = resolveAll();
      resolved = next;
      byId = new Map(next.map((provider) => [provider.id, provider]));
    },
  };
}

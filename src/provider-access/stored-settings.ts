// Provider settings the operator keeps in the store (the operator dashboard) rather than in the
// environment: a provider's OAuth client id and secret, and the further settings its declaration
// names (`requestHeaders`, e.g. an API subscription key). Values are sealed with the service key,
// like provider tokens. They feed the one settings resolution (core/settings.ts `useStored`): a
// variable the environment sets always wins, a stored value fills only what the environment
// leaves unset, and the catalog is resolved again, so `/v2/integrations`, the auth links and the
// token refreshes all see the change. Every process hears a change through the change feed and
// reloads; a process also reloads whenever its feed comes back (it may have missed a notice).
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import type { Config } from '../core/config.ts';
import { badRequest, notFound } from '../core/errors.ts';
import type { SecretBox } from '../core/secret-box.ts';
import { ConfigError, type RawEnv } from '../core/settings.ts';
import { type ChangeHandlers, publishChange } from '../store/change-feed.ts';
import type { Db } from '../store/db.ts';
import type { ProviderCatalog, ResolvedProvider } from './catalog.ts';
import { providerSettings } from './settings.ts';

export const PROVIDER_SETTINGS_TOPIC = 'provider_settings';

/** Longest value accepted for one setting (client secrets and keys are far shorter). */
const MAX_VALUE_LENGTH = 2000;

/** One setting of a provider as the operator page shows it. */
export type StoredSettingView = {
  /** The suffix: `CLIENT_ID`. */
  key: string;
  /** The environment variable: `OURA_CLIENT_ID`. */
  variable: string;
  label: string;
  /** Secret values are never shown back, only whether one is set. */
  secret: boolean;
  /** Where the value in effect comes from. */
  source: 'environment' | 'stored' | 'unset';
  /** A stored value exists (in effect, or overridden by the environment). */
  stored: boolean;
  /** The value in effect, for a setting that is not secret. */
  shown: string | null;
  /** Why the provider's stored values are not in effect (they no longer resolve), if so. */
  ignored: string | null;
};

/** One change: a new value, or null to remove the stored one; a key left out is kept. */
export type StoredSettingsChange = Readonly<Record<string, string | null>>;

type Field = { key: string; label: string; secret: boolean };

/** The settings of a provider that the operator may store: what its declaration needs. */
export function storableFields(provider: ResolvedProvider): Field[] {
  const fields: Field[] = [];
  if (provider.declaration.credentials === 'deployment') {
    fields.push({ key: 'CLIENT_ID', label: 'OAuth client id', secret: false });
    fields.push({ key: 'CLIENT_SECRET', label: 'OAuth client secret', secret: true });
  }
  for (const key of providerSettings.extra(provider.id))
    fields.push({ key, label: key.toLowerCase().replaceAll('_', ' '), secret: true });
  return fields;
}

export type StoredProviderSettingsDeps = {
  db: Db;
  secretBox: SecretBox;
  config: Config;
  clock: Clock;
  log: Logger;
  providers: ProviderCatalog;
  /** The store's change feed (store.listen). */
  listen: (topic: string, handlers: ChangeHandlers) => void;
};

export function createStoredProviderSettings(deps: StoredProviderSettingsDeps) {
  const { db, secretBox, config, providers, log } = deps;
  /** Plain values by variable name, as last loaded. */
  let values: Record<string, string> = {};
  /** Providers whose stored set does not resolve (with the environment as it is now), with why. */
  let ignored = new Map<string, string>();
  let loading: Promise<void> = Promise.resolve();
  let listening = false;

  const variableOf = (providerId: string, key: string) => `${providerId}_${key}`;

  /** The stored values that resolve cleanly, per provider; a provider whose set does not is left out (logged). */
  function usable(all: Record<string, string>, byProvider: Map<string, string[]>): RawEnv {
    const result: Record<string, string> = {};
    ignored = new Map();
    for (const [providerId, variables] of byProvider) {
      const own = Object.fromEntries(variables.map((variable) => [variable, all[variable]]));
      try {
        config.settings.tryStored(providerSettings, providerId, own);
        Object.assign(result, own);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        ignored.set(providerId, error.problems.join('; '));
        log.warn({ provider: providerId, problems: error.problems }, 'stored provider settings ignored');
      }
    }
    return result;
  }

  async function readAll(): Promise<void> {
    const rows = await db
      .selectFrom('provider_settings')
      .select(['provider', 'name', 'value_sealed'])
      .execute();
    const all: Record<string, string> = {};
    const byProvider = new Map<string, string[]>();
    for (const row of rows) {
      if (!providers.get(row.provider)) continue;
      const variable = variableOf(row.provider, row.name);
      all[variable] = secretBox.open(row.value_sealed);
      byProvider.set(row.provider, [...(byProvider.get(row.provider) ?? []), variable]);
    }
    values = all;
    config.settings.useStored(usable(all, byProvider));
    providers.reload();
  }

  /** Loads one after another, so an older read never lands after a newer one. */
  function load(): Promise<void> {
    loading = loading.catch(() => {}).then(readAll);
    return loading;
  }

  function providerOf(providerId: string): ResolvedProvider {
    const provider = providers.get(providerId);
    if (!provider) throw notFound(`unknown provider ${providerId}`);
    return provider;
  }

  function fieldsOf(providerId: string): StoredSettingView[] {
    const provider = providerOf(providerId);
    return storableFields(provider).map((field) => {
      const variable = variableOf(provider.id, field.key);
      const environment = config.settings.inEnvironment(variable);
      const stored = variable in values;
      const problem = stored ? (ignored.get(provider.id) ?? null) : null;
      const source = environment ? 'environment' : stored && problem === null ? 'stored' : 'unset';
      const effective = config.settings.forProvider(providerSettings, provider.id);
      const inEffect =
        field.key === 'CLIENT_ID'
          ? (effective.credentials?.clientId ?? null)
          : field.key === 'CLIENT_SECRET'
            ? null
            : (effective.extra[field.key] ?? null);
      return {
        key: field.key,
        variable,
        label: field.label,
        secret: field.secret,
        source,
        stored,
        shown: field.secret ? null : inEffect,
        ignored: problem,
      };
    });
  }

  return {
    /** Loads the stored values and follows changes made by any process. Call once the store is migrated. */
    async start(): Promise<void> {
      if (!listening) {
        listening = true;
        deps.listen(PROVIDER_SETTINGS_TOPIC, {
          changed: () =>
            void load().catch((error: unknown) =>
              log.error({ err: error }, 'reloading provider settings failed'),
            ),
          live: (up) => {
            if (up)
              void load().catch((error: unknown) =>
                log.error({ err: error }, 'reloading provider settings failed'),
              );
          },
        });
      }
      await load();
    },

    /** Loads the stored values again (a test, or a process that missed a notice). */
    reload: load,

    /** One provider's settings as in effect now. */
    fieldsOf,

    /** Every provider with settings the operator may store, each with its fields as in effect now. */
    list(): { provider: ResolvedProvider; fields: StoredSettingView[] }[] {
      return providers
        .list()
        .map((provider) => ({ provider, fields: fieldsOf(provider.id) }))
        .filter((entry) => entry.fields.length > 0);
    },

    /**
     * Stores (or removes) a provider's settings. The result must resolve as the environment would
     * have to (a client id with its secret), else nothing is written and the problem is a 400.
     * Returns the variables whose stored value the environment overrides.
     */
    async save(providerId: string, change: StoredSettingsChange): Promise<{ overridden: string[] }> {
      const provider = providerOf(providerId);
      const allowed = new Set(storableFields(provider).map((field) => field.key));
      for (const [key, value] of Object.entries(change)) {
        if (!allowed.has(key))
          throw badRequest(`invalid setting: ${provider.id} has no setting ${key} to store`);
        if (value !== null && value.trim() === '')
          throw badRequest(`invalid ${variableOf(provider.id, key)}: empty (clear it instead)`);
        if (value !== null && value.length > MAX_VALUE_LENGTH)
          throw badRequest(
            `invalid ${variableOf(provider.id, key)}: longer than ${MAX_VALUE_LENGTH} characters`,
          );
        if (value !== null && /[\r\n\0]/.test(value))
          throw badRequest(`invalid ${variableOf(provider.id, key)}: contains a line break or NUL`);
      }
      // What this provider's stored set becomes, checked as the boot would check it.
      const next: Record<string, string> = {};
      for (const key of allowed) {
        const variable = variableOf(provider.id, key);
        const changed = change[key];
        const value =
          changed === undefined ? values[variable] : changed === null ? undefined : changed.trim();
        if (value !== undefined) next[variable] = value;
      }
      try {
        config.settings.tryStored(providerSettings, provider.id, next);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        throw badRequest(`invalid settings: ${error.problems.join('; ')}`);
      }
      const now = deps.clock.now();
      await db.transaction().execute(async (trx) => {
        for (const [key, value] of Object.entries(change)) {
          if (value === null) {
            await trx
              .deleteFrom('provider_settings')
              .where('provider', '=', provider.id)
              .where('name', '=', key)
              .execute();
            continue;
          }
          const sealed = secretBox.seal(value.trim());
          await trx
            .insertInto('provider_settings')
            .values({ provider: provider.id, name: key, value_sealed: sealed, updated_at: now })
            .onConflict((conflict) =>
              conflict.columns(['provider', 'name']).doUpdateSet({ value_sealed: sealed, updated_at: now }),
            )
            .execute();
        }
        await publishChange(trx, PROVIDER_SETTINGS_TOPIC, provider.id);
      });
      // This process sees its change at once; the others when the notice reaches them.
      await load();
      return {
        overridden: Object.keys(change)
          .map((key) => variableOf(provider.id, key))
          .filter((variable) => config.settings.inEnvironment(variable)),
      };
    },
  };
}

export type StoredProviderSettings = ReturnType<typeof createStoredProviderSettings>;

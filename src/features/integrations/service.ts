import type { Clock } from '../../core/clock.ts';
import { invalidParameter, notFound } from '../../core/errors.ts';
import type { ProviderCatalog, ResolvedProvider } from '../../provider-access/catalog.ts';
import type { ProviderDataType } from '../../provider-kit/types.ts';
import type { Db } from '../../store/db.ts';
import { findDeveloper } from '../developers/repo.ts';
import * as repo from './repo.ts';

const TYPE_KEYS: readonly ProviderDataType[] = [
  'activity',
  'body',
  'nutrition',
  'daily',
  'sleep',
  'menstruation',
  'athlete',
  'hormone',
  'plannedWorkout',
];

export type IntegrationEntry = {
  provider: string;
  name: string;
  icon: string;
  setup: string;
  enabled: boolean;
  sdk: boolean;
  types: Record<string, boolean>;
  scopes: string[];
  writes_planned_workouts: boolean;
  history_days: number | null;
};

export const iconPath = (providerId: string) => `/v2/static/icons/${providerId.toLowerCase()}.svg`;

export function createIntegrationsService(deps: {
  db: Db;
  providers: ProviderCatalog;
  clock: Clock;
  publicUrl: string;
}) {
  const { db, providers, clock } = deps;
  const isSdk = (provider: ResolvedProvider) => provider.declaration.authKind === 'sdk';

  function entry(provider: ResolvedProvider, enabled: boolean): IntegrationEntry {
    const offered = new Set(provider.declaration.dataTypes);
    return {
      provider: provider.id,
      name: provider.declaration.name,
      icon: `${deps.publicUrl}${iconPath(provider.id)}`,
      setup: provider.setup,
      enabled,
      sdk: isSdk(provider),
      types: Object.fromEntries(TYPE_KEYS.map((type) => [type, offered.has(type)])),
      scopes: [...(provider.oauth?.scopes ?? [])],
      writes_planned_workouts: provider.declaration.writesPlannedWorkouts,
      history_days: provider.declaration.historyDays,
    };
  }

  /** Enabled on the deployment and not switched off by the developer. */
  async function enabledFor(developerId: string, trx: Db = db): Promise<ResolvedProvider[]> {
    const choices = await repo.listDeveloperProviderChoices(trx, developerId);
    return providers.list().filter((provider) => provider.enabled && choices.get(provider.id) !== false);
  }

  return {
    enabledFor,

    /** What this deployment can connect: web providers and SDK sources, by resource id. */
    list(): { providers: string[]; sdk: string[] } {
      const enabled = providers.list().filter((provider) => provider.enabled);
      return {
        providers: enabled.filter((provider) => !isSdk(provider)).map((provider) => provider.id),
        sdk: enabled.filter(isSdk).map((provider) => provider.id),
      };
    },

    /**
     * Every provider with its setup; with a dev-id, only the ones enabled for that developer (as
     * the reference API narrows the list by dev-id). This is public, so a dev-id that names no
     * developer (or a suspended one) gets the answer of a developer with nothing enabled: the
     * list never tells whether a developer exists. SDK sources only when asked for.
     */
    async detailed(options: { sdk: boolean; developerId?: string }): Promise<IntegrationEntry[]> {
      const candidates = providers.list().filter((provider) => options.sdk || !isSdk(provider));
      if (options.developerId === undefined)
        return candidates.map((provider) => entry(provider, provider.enabled));
      if ((await findDeveloper(db, options.developerId))?.status !== 'active') return [];
      const enabled = new Set((await enabledFor(options.developerId)).map((provider) => provider.id));
      return candidates
        .filter((provider) => enabled.has(provider.id))
        .map((provider) => entry(provider, true));
    },

    /** A web provider this developer may connect now: 404 when unknown or not enabled for them. */
    async requireConnectable(developerId: string, resource: string, trx: Db = db): Promise<ResolvedProvider> {
      const provider = providers.get(resource);
      if (!provider) throw notFound(`unknown provider "${resource}"`);
      if (isSdk(provider)) {
        throw invalidParameter(
          'resource',
          `${provider.id} connects through the mobile SDK (see /v2/auth/generateAuthToken)`,
        );
      }
      const enabled = await enabledFor(developerId, trx);
      if (!enabled.some((candidate) => candidate.id === provider.id)) {
        throw notFound(`provider ${provider.id} is not enabled for this developer`);
      }
      return provider;
    },

    /** The SDK source a mobile app connects to (POST /v2/sdk/connect): an SDK provider enabled for the developer. */
    async requireSdkSource(developerId: string, resource: string, trx: Db = db): Promise<ResolvedProvider> {
      const provider = providers.get(resource);
      if (!provider) throw notFound(`unknown provider "${resource}"`);
      if (!isSdk(provider)) {
        throw invalidParameter(
          'resource',
          `${provider.id} connects through the web consent flow (see /v2/auth/authenticateUser)`,
        );
      }
      const enabled = await enabledFor(developerId, trx);
      if (!enabled.some((candidate) => candidate.id === provider.id)) {
        throw notFound(`provider ${provider.id} is not enabled for this developer`);
      }
      return provider;
    },

    /** Per-developer switches (CLI). A provider the deployment cannot serve cannot be enabled. */
    async setForDeveloper(developerId: string, changes: { enable: string[]; disable: string[] }) {
      for (const [list, enabled] of [
        [changes.enable, true],
        [changes.disable, false],
      ] as const) {
        for (const resource of list) {
          const provider = providers.get(resource);
          if (!provider) throw notFound(`unknown provider "${resource}"`);
          if (enabled && !provider.enabled) {
            throw invalidParameter(
              'provider',
              `${provider.id} is not enabled on this deployment (${provider.setup}); configure it first`,
            );
          }
          await repo.setDeveloperProviderChoice(db, {
            developerId,
            provider: provider.id,
            enabled,
            now: clock.now(),
          });
        }
      }
      return this.forDeveloper(developerId);
    },

    async forDeveloper(developerId: string) {
      const choices = await repo.listDeveloperProviderChoices(db, developerId);
      return providers.list().map((provider) => ({
        provider: provider.id,
        setup: provider.setup,
        deployment_enabled: provider.enabled,
        developer_choice: choices.get(provider.id) ?? null,
        enabled: provider.enabled && choices.get(provider.id) !== false,
      }));
    },
  };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;

// How a provider with a real API is declared. `remoteProvider` takes the declaration and its
// hooks and is typed from the declaration itself: one fetcher for every data type it promises,
// planned-workout writers when it says it writes them, an explicit `null` when it has no push
// notifications. Forgetting any of them is a compile error, not a runtime surprise.
import type { DataSource } from './data-source.ts';
import { ProviderDataError } from './data-source.ts';
import type { Connector, Provider, ProviderDataType, ProviderDeclaration } from './types.ts';
import type { NotificationHooks, ProviderApi, TypeFetcher } from './api.ts';
import type { RouteHooks } from './routes.ts';

type PlannedWorkoutHooks = Required<Pick<DataSource, 'writePlannedWorkouts' | 'deletePlannedWorkouts'>> &
  Pick<DataSource, 'plannedWorkoutRefusal'>;

export type RemoteProviderSpec<D extends ProviderDeclaration> = {
  declaration: D;
  api: ProviderApi;
  /** One per data type the declaration lists. */
  fetchers: { readonly [T in D['dataTypes'][number]]: TypeFetcher };
  /** Push notifications at /providers/{id}/webhook; null for a provider that sends none. */
  notifications: NotificationHooks | null;
  /** authKind `api_key`: checks an entered key (Connector.checkApiKey). */
  checkApiKey?: Connector['checkApiKey'];
  /** A course/route API: pushing GPS routes to the user's devices (routes.ts). */
  routes?: RouteHooks;
} & (D['writesPlannedWorkouts'] extends true
  ? { plannedWorkouts: PlannedWorkoutHooks }
  : { plannedWorkouts?: never });

/** A DataSource over per-type fetchers; the framework supplies the HTTP client in the context. */
export function remoteDataSource(
  fetchers: Partial<Record<ProviderDataType, TypeFetcher>>,
  plannedWorkouts?: PlannedWorkoutHooks,
): DataSource {
  return {
    async *fetch(args) {
      const fetcher = fetchers[args.type];
      if (!fetcher) return;
      if (!args.http) throw new ProviderDataError('unavailable', 'no provider HTTP client in this context');
      yield* fetcher({
        http: args.http,
        user: args.user,
        startDate: args.startDate,
        endDate: args.endDate,
        now: args.runtime.clock.now(),
        ...(args.notified === undefined ? {} : { notified: args.notified }),
        ...(args.unreadable === undefined ? {} : { unreadable: args.unreadable }),
        ...(args.originalsKept === undefined ? {} : { originalsKept: args.originalsKept }),
      });
    },
    ...(plannedWorkouts ?? {}),
  };
}

export function remoteProvider<const D extends ProviderDeclaration>(spec: RemoteProviderSpec<D>): Provider {
  const fetchers: Partial<Record<ProviderDataType, TypeFetcher>> = spec.fetchers;
  return {
    declaration: spec.declaration,
    connector: {
      data: remoteDataSource(fetchers, spec.plannedWorkouts),
      api: spec.api,
      ...(spec.notifications ? { notifications: spec.notifications } : {}),
      ...(spec.checkApiKey ? { checkApiKey: spec.checkApiKey } : {}),
      ...(spec.routes ? { routes: spec.routes } : {}),
    },
  };
}

/**
 * The unified types whose records depend on a provider kind: rows of its normalizer table that
 * read the kind itself or as a companion. A notification about that kind refreshes all of them.
 */
export function typesAffectedBy(
  table: Readonly<Record<string, { unifiedType: ProviderDataType; companions: readonly string[] }>>,
  kind: string,
): ProviderDataType[] {
  const types = new Set<ProviderDataType>();
  for (const [name, row] of Object.entries(table)) {
    if (name === kind || row.companions.includes(kind)) types.add(row.unifiedType);
  }
  return [...types];
}

// The route hook of a connector: how a GPS route (model/route.ts) reaches a provider that
// documents a course/route API, and how it is removed there again. A provider without one simply
// has no `routes` hook; the routes feature then answers the developer with a 400.
import type { RouteTemplate } from '../model/route.ts';
import type { DataSourceContext } from './data-source.ts';

export type RoutePushArgs = DataSourceContext & {
  route: RouteTemplate;
  /** Tributary's pushed-route id (stable across re-pushes; some providers key on it). */
  pushedRouteId: string;
  /** The provider's id of an earlier push of this pushed route (a cascade re-push), else null. */
  providerRouteId: string | null;
};

export type RouteHooks = {
  /** What the provider calls its route API (`Courses API`), for the API reference. */
  apiName: string;
  /**
   * Why routes cannot be pushed for this user (e.g. a permission not granted), answered as a
   * 400; null when they can. Absent: always can.
   */
  refusal?(user: DataSourceContext['user']): string | null;
  /** Creates (or, given providerRouteId, replaces) the route at the provider; its id there. */
  push(args: RoutePushArgs): Promise<string>;
  /** Deletes the route at the provider; already gone counts as deleted. Absent: no delete API. */
  delete?(args: DataSourceContext & { providerRouteId: string }): Promise<void>;
};

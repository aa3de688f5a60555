// GPS routes (the vendor's Routes API, docs/wire-contract.md#routes): templates stored per
// developer, pushed to a user's provider through its connector's `routes` hook (a provider
// without one: 400), listed and removed again as pushed routes. `PUT …?cascade=true` re-pushes an
// updated template to every device it was pushed to, in the background: failures are only
// logged, as the vendor documents.
import { AppError, invalidParameter, notFound } from '../../core/errors.ts';
import type { RouteTemplate, RouteUpdate } from '../../model/route.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { RouteHooks } from '../../provider-kit/routes.ts';
import { findConnectionForDeveloper, type ConnectionRow } from '../connections/service.ts';
import type { Developer } from '../developers/service.ts';
import type { RoutesDeps } from './deps.ts';
import * as repo from './repo.ts';
import type { StoredRoute } from './schemas.ts';

export type { RoutesDeps } from './deps.ts';

const ID = /^\d{1,18}$/;
function requireId(name: string, value: string): string {
  if (!ID.test(value)) throw invalidParameter(name, 'expected a positive integer id');
  return value;
}

/** Only the documented fields are stored (a client may send back a route it read, with route_id). */
function routeOf(body: RouteUpdate & Partial<RouteTemplate>): RouteTemplate {
  const route: Record<string, unknown> = {
    name: body.name,
    sport: body.sport,
    waypoints: body.waypoints?.map((point) => ({
      latitude: point.latitude,
      longitude: point.longitude,
      ...(point.elevation_meters === undefined ? {} : { elevation_meters: point.elevation_meters }),
      ...(point.course_point
        ? {
            course_point: {
              type: point.course_point.type,
              ...(point.course_point.name === undefined ? {} : { name: point.course_point.name }),
            },
          }
        : {}),
    })),
  };
  for (const key of [
    'description',
    'elevation_gain_meters',
    'elevation_loss_meters',
    'speed_meters_per_second',
  ] as const) {
    if (body[key] !== undefined) route[key] = body[key];
  }
  return route as RouteTemplate;
}

/** A stored route as listed: apart from waypoint coordinates, zero or empty fields are left out. */
function toWire(row: repo.RouteRow): StoredRoute {
  const route = row.route as Record<string, unknown>;
  const shown: Record<string, unknown> = { route_id: row.id };
  for (const [key, value] of Object.entries(route)) {
    if (value === 0 || value === '' || value === null || value === undefined) continue;
    shown[key] = value;
  }
  return {
    ...(shown as Omit<StoredRoute, 'created_at' | 'updated_at'>),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function pushedToWire(row: repo.PushedRouteRow) {
  return {
    pushed_route_id: row.id,
    route_id: row.route_id,
    user_id: row.user_id,
    provider: row.provider,
    provider_route_id: row.provider_route_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function createRoutesService(deps: RoutesDeps) {
  const { db, clock, log } = deps;
  /** Cascades running in the background (awaited by `idle`, e.g. at shutdown or in a test). */
  const cascades = new Set<Promise<void>>();

  async function routeRow(developer: Developer, id: string) {
    const row = await repo.findRoute(db, developer.id, requireId('route_id', id));
    if (!row) throw notFound(`no route with route_id ${id}`);
    return row;
  }

  /** The user's provider's route hook; a 400 naming user_id when it has none or refuses. */
  function hooksFor(user: ConnectionRow): RouteHooks {
    if (user.status === 'pending')
      throw invalidParameter('user_id', `user ${user.id} has not completed authentication yet`);
    const hooks = deps.providers.get(user.provider)?.connector?.routes;
    if (!hooks)
      throw invalidParameter(
        'user_id',
        `provider ${user.provider} has no route API; routes cannot be pushed to it`,
      );
    const refusal = hooks.refusal?.({
      id: user.id,
      providerUserId: user.provider_user_id,
      scopes: user.scopes,
    });
    if (refusal) throw invalidParameter('user_id', refusal);
    return hooks;
  }

  async function atProvider<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (error) {
      if (!(error instanceof ProviderDataError)) throw error;
      throw new AppError(
        'failed_dependency',
        'the provider did not accept the route right now; retry later',
        {
          headers: { 'Retry-After': String(error.retryAfterSeconds ?? 60) },
        },
      );
    }
  }

  async function repush(developer: Developer, routeId: string, route: RouteTemplate): Promise<void> {
    for (const pushed of await repo.pushedOfRoute(db, developer.id, routeId)) {
      try {
        const user = await findConnectionForDeveloper(db, developer.id, pushed.user_id);
        const hooks = hooksFor(user);
        const providerRouteId = await hooks.push({
          ...deps.data.sync.contextFor(user),
          route,
          pushedRouteId: pushed.id,
          providerRouteId: pushed.provider_route_id,
        });
        await repo.setProviderRouteId(db, pushed.id, providerRouteId, clock.now());
      } catch (error) {
        // The vendor's cascade is fire-and-forget: a failure is logged, never answered.
        log.warn({ err: error, pushedRouteId: pushed.id, routeId }, 'cascade re-push of a route failed');
      }
    }
  }

  return {
    async create(developer: Developer, body: RouteTemplate) {
      const id = await repo.insertRoute(db, developer.id, routeOf(body), clock.now());
      return { status: 'success' as const, route_id: id };
    },

    async list(developer: Developer) {
      return (await repo.listRoutes(db, developer.id)).map(toWire);
    },

    async get(developer: Developer, id: string) {
      return toWire(await routeRow(developer, id));
    },

    /** A partial update; with `cascade`, re-pushed in the background to every device it went to. */
    async update(developer: Developer, id: string, patch: RouteUpdate, cascade: boolean) {
      const row = await routeRow(developer, id);
      const route = routeOf({ ...(row.route as RouteTemplate), ...patch });
      const now = clock.now();
      await repo.updateRoute(db, row.id, route, now);
      if (cascade) {
        const running = repush(developer, row.id, route)
          .catch((error: unknown) => log.error({ err: error, routeId: row.id }, 'route cascade stopped'))
          .finally(() => cascades.delete(running));
        cascades.add(running);
        return { status: 'accepted' as const, route_id: row.id };
      }
      return toWire({ ...row, route, updated_at: now });
    },

    /** Deletes the template; routes already pushed stay on the devices (remove them one by one). */
    async remove(developer: Developer, id: string) {
      if (!(await repo.deleteRoute(db, developer.id, requireId('route_id', id))))
        throw notFound(`no route with route_id ${id}`);
      return { status: 'success' as const };
    },

    async push(developer: Developer, id: string, userId: string) {
      const row = await routeRow(developer, id);
      const user = await findConnectionForDeveloper(db, developer.id, userId);
      const hooks = hooksFor(user);
      const pushedId = await repo.insertPushed(db, {
        developerId: developer.id,
        routeId: row.id,
        userId: user.id,
        provider: user.provider,
        now: clock.now(),
      });
      try {
        const providerRouteId = await atProvider(() =>
          hooks.push({
            ...deps.data.sync.contextFor(user),
            route: row.route as RouteTemplate,
            pushedRouteId: pushedId,
            providerRouteId: null,
          }),
        );
        await repo.setProviderRouteId(db, pushedId, providerRouteId, clock.now());
        return { status: 'success' as const, pushed_route_id: pushedId, provider_route_id: providerRouteId };
      } catch (error) {
        await repo.deletePushed(db, pushedId);
        throw error;
      }
    },

    async listPushed(developer: Developer, userId: string) {
      const user = await findConnectionForDeveloper(db, developer.id, userId);
      return (await repo.pushedOfUser(db, developer.id, user.id)).map(pushedToWire);
    },

    async getPushed(developer: Developer, userId: string, id: string) {
      const user = await findConnectionForDeveloper(db, developer.id, userId);
      const row = await repo.findPushed(db, developer.id, user.id, requireId('pushed_route_id', id));
      if (!row) throw notFound(`no pushed route with pushed_route_id ${id} for user ${user.id}`);
      return pushedToWire(row);
    },

    /**
     * Removes a pushed route, at the provider too where it has a delete API; where it has none the
     * route stays on the device and the answer is still a success (as the vendor documents).
     */
    async removePushed(developer: Developer, userId: string, id: string) {
      const user = await findConnectionForDeveloper(db, developer.id, userId);
      const row = await repo.findPushed(db, developer.id, user.id, requireId('pushed_route_id', id));
      if (!row) throw notFound(`no pushed route with pushed_route_id ${id} for user ${user.id}`);
      const remove = deps.providers.get(user.provider)?.connector?.routes?.delete;
      if (remove && row.provider_route_id && user.status !== 'pending') {
        const providerRouteId = row.provider_route_id;
        await atProvider(() => remove({ ...deps.data.sync.contextFor(user), providerRouteId }));
      }
      await repo.deletePushed(db, row.id);
      return { status: 'success' as const };
    },

    /** Resolves once every background cascade has finished. */
    async idle(): Promise<void> {
      while (cascades.size > 0) await Promise.allSettled([...cascades]);
    },
  };
}

export type RoutesService = ReturnType<typeof createRoutesService>;

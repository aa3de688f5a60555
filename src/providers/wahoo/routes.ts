// Wahoo Cloud API routes (https://cloud-api.wahooligan.com/#routes; scope `routes_write`): a route
// goes up as a FIT course file in a data URI (`route[file]`), keyed by a stable
// `route[external_id]` (`tributary-{pushed_route_id}`, as the vendor keys it `terra-{…}`), with
// its start point, distance, ascent and descent; a re-push replaces it in place (PUT
// /v1/routes/{id}), a delete removes it. Course points, speed and description are not carried
// (Wahoo's route has no place for them).
import { createRequire } from 'node:module';
import type { DataSourceUser } from '../../provider-kit/data-source.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { RouteHooks } from '../../provider-kit/routes.ts';
import type { RouteTemplate } from '../../model/route.ts';
import { haversineMeters } from '../../model/route-geometry.ts';

const WAHOO_API = 'https://api.wahooligan.com';
export const ROUTES_WRITE = 'routes_write';

/** Wahoo's workout type families: 0 biking, 1 running (every foot sport; `other` rides). */
const FAMILY: Record<RouteTemplate['sport'], string> = {
  running: '1',
  trail_running: '1',
  hiking: '1',
  cycling: '0',
  road_biking: '0',
  mountain_biking: '0',
  gravel_cycling: '0',
  other: '0',
};

type FitEncoder = { onMesg(mesgNum: number, mesg: Record<string, unknown>): void; close(): Uint8Array };
type FitSdk = { Encoder: new () => FitEncoder; Profile: { MesgNum: Record<string, number> } };
let fitSdk: FitSdk | undefined;
const loadFitSdk = (): FitSdk => (fitSdk ??= createRequire(import.meta.url)('@garmin/fitsdk') as FitSdk);

const DEGREES_TO_SEMICIRCLES = 2 ** 31 / 180;
/** FIT course files carry timestamps; a route has none, so points are 1 s apart from this fixed time. */
const COURSE_EPOCH_MS = Date.UTC(2020, 0, 1);

/** The route as a FIT course file (file_id type course, course, lap, one record per waypoint). */
export function routeFit(route: RouteTemplate): { bytes: Uint8Array; distance: number } {
  const { Encoder, Profile } = loadFitSdk();
  const MESG = Profile.MesgNum;
  const encoder = new Encoder();
  const start = new Date(COURSE_EPOCH_MS);
  const foot = FAMILY[route.sport] === '1';
  encoder.onMesg(MESG.FILE_ID!, {
    type: 'course',
    manufacturer: 'development',
    product: 0,
    timeCreated: start,
  });
  encoder.onMesg(MESG.COURSE!, { name: route.name.slice(0, 100), sport: foot ? 'running' : 'cycling' });
  let distance = 0;
  const points = route.waypoints;
  for (let index = 0; index < points.length; index++) {
    const point = points[index]!;
    if (index > 0) distance += haversineMeters(points[index - 1]!, point);
    encoder.onMesg(MESG.RECORD!, {
      timestamp: new Date(COURSE_EPOCH_MS + index * 1000),
      positionLat: Math.round(point.latitude * DEGREES_TO_SEMICIRCLES),
      positionLong: Math.round(point.longitude * DEGREES_TO_SEMICIRCLES),
      distance: Math.round(distance * 100) / 100,
      ...(point.elevation_meters === undefined ? {} : { altitude: point.elevation_meters }),
    });
  }
  const last = points[points.length - 1]!;
  encoder.onMesg(MESG.LAP!, {
    timestamp: new Date(COURSE_EPOCH_MS + (points.length - 1) * 1000),
    startTime: start,
    startPositionLat: Math.round(points[0]!.latitude * DEGREES_TO_SEMICIRCLES),
    startPositionLong: Math.round(points[0]!.longitude * DEGREES_TO_SEMICIRCLES),
    endPositionLat: Math.round(last.latitude * DEGREES_TO_SEMICIRCLES),
    endPositionLong: Math.round(last.longitude * DEGREES_TO_SEMICIRCLES),
    totalElapsedTime: points.length - 1,
    totalTimerTime: points.length - 1,
    totalDistance: Math.round(distance * 100) / 100,
  });
  return { bytes: encoder.close(), distance };
}

/** The form Wahoo's POST/PUT /v1/routes take. */
export function wahooRouteForm(route: RouteTemplate, pushedRouteId: string): Record<string, string> {
  const { bytes, distance } = routeFit(route);
  const first = route.waypoints[0]!;
  return {
    'route[file]': `data:application/vnd.fit;base64,${Buffer.from(bytes).toString('base64')}`,
    'route[filename]': `route-${pushedRouteId}.fit`,
    'route[external_id]': `tributary-${pushedRouteId}`,
    'route[provider_updated_at]': new Date().toISOString(),
    'route[name]': route.name,
    'route[workout_type_family_id]': FAMILY[route.sport],
    'route[start_lat]': String(first.latitude),
    'route[start_lng]': String(first.longitude),
    'route[distance]': String(Math.round(distance)),
    'route[ascent]': String(route.elevation_gain_meters ?? 0),
    'route[descent]': String(route.elevation_loss_meters ?? 0),
  };
}

/** Why this user's routes cannot go to Wahoo (`routes_write` not granted); null when they can. */
export function wahooRouteRefusal(user: DataSourceUser): string | null {
  if (user.scopes === null) return null;
  return user.scopes.split(/[\s,]+/).includes(ROUTES_WRITE)
    ? null
    : `the user has not granted Wahoo's ${ROUTES_WRITE} scope`;
}

const idOf = (answer: unknown): string => {
  const id = (answer as { id?: unknown } | null)?.id;
  if (typeof id !== 'number' && typeof id !== 'string')
    throw new ProviderDataError('unavailable', 'Wahoo created a route without an id');
  return String(id);
};

export const wahooRoutes: RouteHooks = {
  apiName: 'routes',
  refusal: wahooRouteRefusal,

  async push({ http, route, pushedRouteId, providerRouteId }) {
    if (!http) throw new ProviderDataError('unavailable', 'no provider HTTP client in this context');
    const form = wahooRouteForm(route, pushedRouteId);
    if (providerRouteId && /^\d+$/.test(providerRouteId)) {
      const replaced = await http.json({
        method: 'PUT',
        url: `${WAHOO_API}/v1/routes/${providerRouteId}`,
        form,
        absentOn: [404],
      });
      if (replaced !== null) return providerRouteId;
    }
    return idOf(await http.json({ method: 'POST', url: `${WAHOO_API}/v1/routes`, form }));
  },

  async delete({ http, providerRouteId }) {
    if (!http) throw new ProviderDataError('unavailable', 'no provider HTTP client in this context');
    if (!/^\d+$/.test(providerRouteId)) return;
    await http.json({ method: 'DELETE', url: `${WAHOO_API}/v1/routes/${providerRouteId}`, absentOn: [404] });
  },
};

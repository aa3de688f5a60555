import { Decoder, Stream } from '@garmin/fitsdk';
import type { FakeReply, FakeRequest, Grant, Route } from './fake-server.ts';

/**
 * Wahoo Cloud API routes in the fake (https://cloud-api.wahooligan.com/#routes): POST /v1/routes
 * and PUT /v1/routes/{id} take a form whose `route[file]` is a FIT file in a
 * `data:application/vnd.fit;base64,…` URI, with `route[external_id]`, `route[name]`,
 * `route[workout_type_family_id]`, `route[start_lat]`, `route[start_lng]` and `route[distance]`
 * required; DELETE /v1/routes/{id}. Every call needs a token with the `routes_write` scope
 * (Wahoo's scope list, same page, "Authentication"). The FIT file must decode as a course with at
 * least two positioned records (the ELEMNT reads the course from it). An external_id is unique
 * per user (Wahoo's "external_id … unique per app and user").
 */
export type WahooRoute = {
  id: number;
  account: string;
  externalId: string;
  name: string;
  familyId: number;
  startLat: number;
  startLng: number;
  distance: number;
  /** Positions decoded from the FIT file, in degrees. */
  points: { lat: number; lng: number; altitude: number | null }[];
};

const SEMICIRCLES_TO_DEGREES = 180 / 2 ** 31;
const FIT_URI = /^data:application\/vnd\.fit;base64,([A-Za-z0-9+/=]+)$/;
const bad = (message: string): FakeReply => ({ status: 400, body: { error: message } });

/** The course points of a FIT course file, or why it is refused. */
function decodeCourse(uri: string | null): WahooRoute['points'] | string {
  const match = FIT_URI.exec(uri ?? '');
  if (!match) return 'route[file] must be a data:application/vnd.fit;base64 URI';
  const stream = Stream.fromBuffer(Buffer.from(match[1]!, 'base64'));
  if (!Decoder.isFIT(stream)) return 'route[file] is not a FIT file';
  const { messages, errors } = new Decoder(stream).read();
  if (errors.length > 0) return `route[file] is not readable: ${String(errors[0])}`;
  const fileId = (messages.fileIdMesgs as Record<string, unknown>[] | undefined)?.[0];
  if (fileId?.type !== 'course') return 'route[file] must be a FIT course file';
  const records = (messages.recordMesgs as Record<string, unknown>[] | undefined) ?? [];
  const points = records
    .filter((record) => typeof record.positionLat === 'number' && typeof record.positionLong === 'number')
    .map((record) => ({
      lat: (record.positionLat as number) * SEMICIRCLES_TO_DEGREES,
      lng: (record.positionLong as number) * SEMICIRCLES_TO_DEGREES,
      altitude: typeof record.altitude === 'number' ? record.altitude : null,
    }));
  if (points.length < 2) return 'route[file] needs at least two positioned records';
  return points;
}

/** Wahoo's checks of a route form; the route, or why it is refused. */
function routeOf(form: URLSearchParams, account: string, id: number): WahooRoute | FakeReply {
  for (const field of [
    'external_id',
    'name',
    'workout_type_family_id',
    'start_lat',
    'start_lng',
    'distance',
  ]) {
    if (!form.get(`route[${field}]`)) return bad(`route[${field}] is required`);
  }
  const number = (field: string) => Number(form.get(`route[${field}]`));
  const familyId = number('workout_type_family_id');
  if (!Number.isInteger(familyId) || familyId < 0)
    return bad('route[workout_type_family_id] must be an integer');
  const [startLat, startLng, distance] = [number('start_lat'), number('start_lng'), number('distance')];
  if (!(Math.abs(startLat) <= 90) || !(Math.abs(startLng) <= 180))
    return bad('route[start_lat]/[start_lng] out of range');
  if (!(distance >= 0)) return bad('route[distance] must be a number of metres');
  const points = decodeCourse(form.get('route[file]'));
  if (typeof points === 'string') return bad(points);
  return {
    id,
    account,
    externalId: form.get('route[external_id]')!,
    name: form.get('route[name]')!,
    familyId,
    startLat,
    startLng,
    distance,
    points,
  };
}

const wire = (route: WahooRoute) => ({
  id: route.id,
  external_id: route.externalId,
  name: route.name,
  workout_type_family_id: route.familyId,
  start_lat: route.startLat,
  start_lng: route.startLng,
  distance: route.distance,
});

export function wahooRouteRoutes(
  authorized: (request: FakeRequest, scope: string) => Grant | FakeReply,
  routes: Map<number, WahooRoute>,
  nextId: () => number,
): Route[] {
  const owned = (request: FakeRequest): { grant: Grant; route: WahooRoute } | FakeReply => {
    const grant = authorized(request, 'routes_write');
    if (!('account' in grant)) return grant;
    const route = routes.get(Number(request.params.id));
    if (!route || route.account !== grant.account) return { status: 404, body: { error: 'Not Found' } };
    return { grant, route };
  };
  return [
    {
      method: 'POST',
      path: '/v1/routes',
      handler(request) {
        const grant = authorized(request, 'routes_write');
        if (!('account' in grant)) return grant;
        const route = routeOf(request.form, grant.account, nextId());
        if ('status' in route) return route;
        for (const other of routes.values()) {
          if (other.account === grant.account && other.externalId === route.externalId)
            return { status: 422, body: { error: 'external_id has already been taken' } };
        }
        routes.set(route.id, route);
        return { status: 201, body: wire(route) };
      },
    },
    {
      method: 'PUT',
      path: '/v1/routes/:id',
      handler(request) {
        const found = owned(request);
        if (!('route' in found)) return found;
        const route = routeOf(request.form, found.grant.account, found.route.id);
        if ('status' in route) return route;
        routes.set(route.id, route);
        return { status: 200, body: wire(route) };
      },
    },
    {
      method: 'DELETE',
      path: '/v1/routes/:id',
      handler(request) {
        const found = owned(request);
        if (!('route' in found)) return found;
        routes.delete(found.route.id);
        return { status: 204 };
      },
    },
  ];
}

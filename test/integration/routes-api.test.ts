import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { providerEnv } from '../fakes/fake-server.ts';
import { courseProblem } from '../fakes/garmin-courses.ts';
import { type GarminFake, startGarminFake } from '../fakes/garmin.ts';
import { startWahooFake, type WahooFake } from '../fakes/wahoo.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectSandboxUser, connectThroughFake, untilScopes } from '../helpers/connections.ts';
import { until } from '../helpers/until.ts';
import { toGarminCourse } from '../../src/providers/garmin/courses.ts';
import { socketJson } from '../helpers/socket-json.ts';

// The Routes API (docs/wire-contract.md#routes) over a real socket: templates created, listed,
// read, partly updated (200) and cascaded (202), deleted; pushed to Garmin (Courses API) and
// Wahoo (routes, a FIT course file) through their fakes, which refuse what those APIs refuse;
// pushed routes listed, read and removed at the provider; every documented validation a 400
// problem naming its field; a provider without a route API a 400 naming user_id.
type Json = Record<string, unknown>;

const loop = (count = 4) =>
  Array.from({ length: count }, (_, index) => ({
    latitude: 51.5074 + index * 0.001,
    longitude: -0.1278 + index * 0.001,
    elevation_meters: 12 + (index % 100),
  }));
const trail = {
  name: 'Ridge trail',
  sport: 'trail_running',
  description: 'Up and over',
  elevation_gain_meters: 420,
  elevation_loss_meters: 420,
  speed_meters_per_second: 2.5,
  waypoints: [
    {
      latitude: 46.0207,
      longitude: 7.7491,
      elevation_meters: 1620,
      course_point: { type: 'generic', name: 'Start' },
    },
    {
      latitude: 46.0251,
      longitude: 7.7402,
      elevation_meters: 2040,
      course_point: { type: 'summit', name: 'Top' },
    },
    { latitude: 46.0301, longitude: 7.7355, elevation_meters: 1700, course_point: { type: 'left' } },
  ],
};

describe('Routes API', () => {
  let garmin: GarminFake;
  let wahoo: WahooFake;
  let service: TestService;
  let developer: TestDeveloper;
  let base: string;
  let garminUser: string;
  let wahooUser: string;
  let sandboxUser: string;

  const call = socketJson(
    () => base,
    () => developer.headers,
  );
  const problem = async (method: string, path: string, body: unknown, status: number, detail: RegExp) => {
    const answer = await call(method, path, body);
    assert.equal(answer.status, status, JSON.stringify(answer.json));
    assert.match(answer.type, /application\/problem\+json/);
    assert.match(String(answer.json.detail), detail);
  };
  const create = async (body: unknown) => {
    const created = await call('POST', '/v2/routes', body);
    assert.equal(created.status, 201, JSON.stringify(created.json));
    return created.json.route_id as string;
  };

  before(async () => {
    garmin = await startGarminFake({ offsetMinutes: 60 });
    wahoo = await startWahooFake({ historyDays: 30 });
    // The backfill must not spend Wahoo's 200 requests per 5 minutes before the pushes run.
    wahoo.limitPer5Minutes = 100_000;
    service = await startTestService({
      env: {
        ...providerEnv('GARMIN', garmin),
        ...providerEnv('WAHOO', wahoo),
        PROVIDER_HTTP_RETRY_BASE_MS: '20',
      },
    });
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
    garmin.endpointUrl = `${base}/providers/GARMIN/webhook`;
    developer = await createDeveloper(service.ctx);
    garminUser = (await connectThroughFake(service.app, developer, 'GARMIN', garmin, 'routes-garmin')).userId;
    wahooUser = (await connectThroughFake(service.app, developer, 'WAHOO', wahoo, 'routes-wahoo')).userId;
    sandboxUser = (await connectSandboxUser(service.app, developer)).userId;
  });
  after(async () => {
    await service?.close();
    await garmin?.close();
    await wahoo?.close();
  });

  test('create, list, get, partial update, delete a template', async () => {
    const id = await create({ name: 'Morning loop', sport: 'running', waypoints: loop() });
    assert.match(id, /^\d+$/);
    const listed = await call('GET', '/v2/routes');
    assert.equal(listed.status, 200);
    assert.ok(listed.json.some((route: Json) => route.route_id === id));
    const read = await call('GET', `/v2/routes/${id}`);
    assert.equal(read.status, 200);
    assert.equal(read.json.name, 'Morning loop');
    assert.equal(read.json.waypoints.length, 4);
    assert.equal(read.json.description, undefined, 'empty fields are left out');

    const updated = await call('PUT', `/v2/routes/${id}`, { name: 'Evening loop' });
    assert.equal(updated.status, 200, JSON.stringify(updated.json));
    assert.equal(updated.json.name, 'Evening loop');
    assert.equal(updated.json.sport, 'running', 'fields not given are kept');
    assert.equal(updated.json.waypoints.length, 4);
    // A route read back (with its route_id) may be sent back as the update.
    const roundTrip = await call('PUT', `/v2/routes/${id}`, { ...read.json, name: 'Loop again' });
    assert.equal(roundTrip.status, 200, JSON.stringify(roundTrip.json));

    assert.equal((await call('DELETE', `/v2/routes/${id}`)).status, 200);
    await problem('GET', `/v2/routes/${id}`, undefined, 404, /no route/);
    await problem('DELETE', `/v2/routes/${id}`, undefined, 404, /no route/);
    await problem('GET', '/v2/routes/abc', undefined, 400, /route_id/);
  });

  test('every documented validation is a 400 naming the field', async () => {
    const good = { name: 'ok', sport: 'hiking', waypoints: loop(2) };
    const cases: [Json, RegExp][] = [
      [{ ...good, name: '' }, /name/],
      [{ ...good, name: 'x'.repeat(256) }, /name/],
      [{ ...good, description: 'x'.repeat(2001) }, /description/],
      [{ ...good, sport: 'swimming' }, /sport/],
      [{ ...good, waypoints: loop(1) }, /waypoints/],
      [{ ...good, waypoints: loop(10_001) }, /waypoints/],
      [{ ...good, waypoints: [{ latitude: 91, longitude: 0 }, ...loop(1)] }, /latitude/],
      [{ ...good, waypoints: [{ latitude: 0, longitude: -180.5 }, ...loop(1)] }, /longitude/],
      [
        { ...good, waypoints: [{ latitude: 0, longitude: 0, elevation_meters: -501 }, ...loop(1)] },
        /elevation_meters/,
      ],
      [
        { ...good, waypoints: [{ latitude: 0, longitude: 0, elevation_meters: 9001 }, ...loop(1)] },
        /elevation_meters/,
      ],
      [{ ...good, speed_meters_per_second: 0 }, /speed_meters_per_second/],
      [{ ...good, elevation_gain_meters: -1 }, /elevation_gain_meters/],
      [
        { ...good, waypoints: [{ latitude: 0, longitude: 0, course_point: { type: 'cafe' } }, ...loop(1)] },
        /type/,
      ],
      [{ sport: 'hiking', waypoints: loop(2) }, /name/],
    ];
    for (const [body, field] of cases) await problem('POST', '/v2/routes', body, 400, field);
    // The limits themselves are accepted: 10,000 waypoints, 255/2,000 characters, the range ends.
    const edge = await create({
      name: 'x'.repeat(255),
      description: 'y'.repeat(2000),
      sport: 'other',
      waypoints: [
        { latitude: -90, longitude: -180, elevation_meters: -500 },
        ...loop(9_998),
        { latitude: 90, longitude: 180, elevation_meters: 9000 },
      ],
    });
    const id = await create(good);
    await problem('PUT', `/v2/routes/${id}`, { waypoints: loop(1) }, 400, /waypoints/);
    await problem('PUT', `/v2/routes/${id}`, { speed_meters_per_second: -2 }, 400, /speed_meters_per_second/);
    await problem('PUT', `/v2/routes/${edge}?cascade=maybe`, { name: 'n' }, 400, /cascade/);
  });

  test('the Garmin conversion is a course Garmin accepts; the turn types are left out', () => {
    const course = toGarminCourse(trail as never);
    assert.equal(courseProblem(course), null);
    assert.equal(course.activityType, 'TRAIL_RUNNING');
    assert.deepEqual(
      (course.coursePoints as Json[]).map((point) => point.coursePointType),
      ['GENERIC', 'SUMMIT'],
    );
    const mixed = toGarminCourse({
      ...trail,
      waypoints: [trail.waypoints[0], { latitude: 46.03, longitude: 7.73 }],
    } as never);
    assert.ok(
      (mixed.geoPoints as Json[]).every((point) => point.elevation === undefined),
      'mixed elevation: none sent',
    );
    assert.equal(courseProblem(mixed), null);
    assert.match(
      String(
        courseProblem({
          ...course,
          geoPoints: [
            { latitude: 1, longitude: 1, elevation: 3 },
            { latitude: 1, longitude: 2 },
          ],
        }),
      ),
      /elevation/,
    );
  });

  test('push to Garmin, list and read the pushed route, cascade an update, remove it', async () => {
    const id = await create(trail);
    const pushed = await call('POST', `/v2/routes/${id}/push?user_id=${garminUser}`);
    assert.equal(pushed.status, 201, JSON.stringify(pushed.json));
    const { pushed_route_id: pushedId, provider_route_id: courseId } = pushed.json;
    const courses = garmin.accountOf('account-1').courses;
    const course = courses.get(Number(courseId));
    assert.ok(course, 'Garmin holds the course');
    assert.equal(course.courseName, 'Ridge trail');
    assert.equal((course.geoPoints as Json[]).length, 3);
    assert.equal(course.speedMeterPerSecond, 2.5);

    const listed = await call('GET', `/v2/pushedRoutes?user_id=${garminUser}`);
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.json.map((row: Json) => [
        row.pushed_route_id,
        row.route_id,
        row.provider,
        row.provider_route_id,
      ]),
      [[pushedId, id, 'GARMIN', courseId]],
    );
    const one = await call('GET', `/v2/pushedRoutes/${pushedId}?user_id=${garminUser}`);
    assert.equal(one.status, 200);
    assert.equal(one.json.provider_route_id, courseId);

    const cascaded = await call('PUT', `/v2/routes/${id}?cascade=true`, { name: 'Ridge trail (new start)' });
    assert.equal(cascaded.status, 202, JSON.stringify(cascaded.json));
    await until(
      'the cascade reaches Garmin',
      async () => courses.get(Number(courseId))?.courseName === 'Ridge trail (new start)',
    );
    assert.equal(courses.size, 1, 'replaced in place, not added');

    assert.equal((await call('DELETE', `/v2/pushedRoutes/${pushedId}?user_id=${garminUser}`)).status, 200);
    assert.equal(courses.has(Number(courseId)), false, 'removed at Garmin');
    await problem(
      'GET',
      `/v2/pushedRoutes/${pushedId}?user_id=${garminUser}`,
      undefined,
      404,
      /no pushed route/,
    );
    await problem('GET', `/v2/pushedRoutes/x?user_id=${garminUser}`, undefined, 400, /pushed_route_id/);
    await problem('GET', '/v2/pushedRoutes', undefined, 400, /user_id/);
  });

  test('without COURSE_IMPORT: a 400 naming the permission, and Garmin is not asked', async () => {
    // A Garmin account and user of its own: the narrowed permissions touch no other test.
    const account = 'routes-no-course-import';
    garmin.consent.account = account;
    const { userId } = await connectThroughFake(service.app, developer, 'GARMIN', garmin, account).finally(
      () => {
        garmin.consent.account = 'account-1';
      },
    );
    const changed = await garmin.setPermissions(['ACTIVITY_EXPORT', 'HEALTH_EXPORT'], account);
    assert.equal(changed.status, 200, changed.responseBody);
    await untilScopes(service, userId, 'ACTIVITY_EXPORT HEALTH_EXPORT');
    const id = await create(trail);
    const asked = garmin.requestsTo('/training-api/courses').length;
    await problem('POST', `/v2/routes/${id}/push?user_id=${userId}`, undefined, 400, /COURSE_IMPORT/);
    assert.equal(garmin.requestsTo('/training-api/courses').length, asked, 'Garmin was not asked');
    assert.equal(garmin.accountOf(account).courses.size, 0);
  });

  test('push to Wahoo: a FIT course file; cascade replaces it; removed at Wahoo', async () => {
    const id = await create({
      name: 'Gravel loop',
      sport: 'gravel_cycling',
      elevation_gain_meters: 80,
      waypoints: loop(5),
    });
    const pushed = await call('POST', `/v2/routes/${id}/push?user_id=${wahooUser}`);
    const asked = wahoo.requests.filter((request) => request.path.startsWith('/v1/routes'));
    assert.equal(pushed.status, 201, `${JSON.stringify(pushed.json)} ${JSON.stringify(asked.at(-1))}`);
    const [route] = wahoo.routesOf('account-1');
    assert.ok(route);
    assert.equal(String(route.id), pushed.json.provider_route_id);
    assert.equal(route.externalId, `tributary-${pushed.json.pushed_route_id}`);
    assert.equal(route.familyId, 0);
    assert.equal(route.points.length, 5);
    assert.ok(Math.abs(route.points[4]!.lat - (51.5074 + 0.004)) < 1e-6);
    assert.ok(route.distance > 500 && route.distance < 600, `distance ${route.distance}`);

    assert.equal((await call('PUT', `/v2/routes/${id}?cascade=true`, { waypoints: loop(3) })).status, 202);
    await until('the cascade reaches Wahoo', async () => wahoo.routesOf('account-1')[0]?.points.length === 3);
    assert.equal(wahoo.routesOf('account-1').length, 1);

    assert.equal(
      (await call('DELETE', `/v2/pushedRoutes/${pushed.json.pushed_route_id}?user_id=${wahooUser}`)).status,
      200,
    );
    assert.equal(wahoo.routesOf('account-1').length, 0);
  });

  test('a provider without a route API, an unknown user, an unknown route: 400/404 problems', async () => {
    const id = await create(trail);
    await problem(
      'POST',
      `/v2/routes/${id}/push?user_id=${sandboxUser}`,
      undefined,
      400,
      /user_id.*no route API/,
    );
    await problem('POST', `/v2/routes/${id}/push`, undefined, 400, /user_id/);
    await problem('POST', `/v2/routes/${id}/push?user_id=not-a-uuid`, undefined, 400, /user_id/);
    await problem(
      'POST',
      `/v2/routes/${id}/push?user_id=00000000-0000-4000-8000-000000000000`,
      undefined,
      404,
      /no user/,
    );
    await problem('POST', `/v2/routes/999999/push?user_id=${garminUser}`, undefined, 404, /no route/);
    assert.deepEqual((await call('GET', `/v2/pushedRoutes?user_id=${sandboxUser}`)).json, []);
  });
});

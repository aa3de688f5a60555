import { randomUUID } from 'node:crypto';
import { MS_PER_DAY } from '../../src/model/time.ts';
import {
  type Consent,
  createClock,
  dayUuid,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
  type Grant,
  seeded,
  startFakeServer,
} from './fake-server.ts';

/**
 * A local Hevy API, written from Hevy's OpenAPI document ("Hevy API Docs" 0.0.1, served at
 * api.hevyapp.com/docs; captured in ../shared/reference/provider-specs/hevy/openapi.json):
 *
 * - Access: every operation requires an `api-key` header (OpenAPI: `in: header, name: api-key,
 *   format: uuid, required`); a missing, malformed or unknown key is answered 401 (the status
 *   community clients document for "Invalid or missing API key": morgancrozier/Hevy-Coach
 *   docs/API-REFERENCE.md). There is no OAuth and no revocation endpoint: the user deletes the
 *   key in Hevy's settings (`deleteKey` here).
 * - GET /v1/user/info: `{data: {id, name, url}}` (OpenAPI `UserInfoResponse`).
 * - GET /v1/workouts?page&pageSize: `{page, page_count, workouts}`; `page` 1 or greater, `pageSize`
 *   at most 10, else 400 "Invalid page size" (OpenAPI parameters and 400 response).
 * - GET /v1/workouts/events?page&pageSize&since: `{page, page_count, events}` of
 *   `{type: 'updated', workout}` and `{type: 'deleted', id, deleted_at}` "since a given date",
 *   "ordered from newest to oldest" (OpenAPI summary); `since` defaults to the epoch.
 * - Workout (OpenAPI `Workout`): id, title, routine_id, description, start_time, end_time,
 *   updated_at, created_at (ISO instants in UTC, `…Z`), exercises[] of index, title, notes,
 *   exercise_template_id, supersets_id (null outside a superset), sets[] of index, type
 *   (normal, warmup, dropset, failure), weight_kg, reps, distance_meters, duration_seconds, rpe,
 *   custom_metric, each nullable.
 * - Limits: none documented; a 429 carries Retry-After (community clients honour it:
 *   chrisdoc/hevy-mcp CHANGELOG "Retry-After support for 429 responses").
 *
 * Edge cases served: optional fields missing (no description, no routine_id, no notes, no rpe
 * key at all), placeholder zeros (0 m and 0 s on weight sets: not documented, the app's
 * exports write them; docs/providers.md lists it as unconfirmed), bodyweight sets with
 * `weight_kg: 0` or null, workouts that start before UTC midnight and end after it (day
 * boundaries), workouts edited later (a newer `updated_at`) and deleted workouts (events only).
 */
export type HevyFake = FakeServer & {
  /** Unused (no OAuth); present so the shared path's env helper has something to set. */
  clientId: string;
  clientSecret: string;
  consent: Consent;
  /** One per API key handed out, as grants (`accessToken` is the key; never refreshed). */
  grants: Grant[];
  /** A new key for an account (as the user creates it at hevy.com/settings?developer). */
  newKey(account?: string): string;
  /** The user deletes a key in Hevy's settings: it is refused from then on. */
  deleteKey(key: string): void;
  /** Hevy's user id of an account. */
  userIdOf(account: string): string;
  /** Logs a new workout now (it appears in the events since now). */
  logWorkout(account: string): { id: string; start_time: string };
  /** The user deletes a workout now: a `deleted` event {id, deleted_at} from then on. */
  deleteWorkout(account: string, id: string): void;
  /** The workouts the fake holds for an account whose start falls on a UTC day. */
  workoutsOn(account: string, date: string): Record<string, unknown>[];
};

const MAX_PAGE_SIZE = 10;
/** Days of history the fake holds. */
const HISTORY_DAYS = 400;

type Workout = Record<string, unknown> & { id: string; start_time: string; updated_at: string };

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function exercisesFor(random: ReturnType<typeof seeded>, index: number): Record<string, unknown>[] {
  const bench = {
    index: 0,
    title: 'Bench Press (Barbell)',
    notes: index % 4 === 0 ? 'Paused reps' : '',
    exercise_template_id: '79D0BB3A',
    supersets_id: null,
    sets: [0, 1, 2, 3].map((set) => ({
      index: set,
      type: set === 0 ? 'warmup' : set === 3 ? 'failure' : 'normal',
      weight_kg: set === 0 ? 40 : 60 + random.int(0, 4) * 2.5,
      reps: set === 0 ? 10 : random.int(5, 10),
      // Placeholder zeros on a weight set (see the header).
      distance_meters: index % 3 === 0 ? 0 : null,
      duration_seconds: index % 3 === 0 ? 0 : null,
      // The key is left out on some sets, 0 on others.
      ...(index % 5 === 0 ? {} : { rpe: set === 0 ? 0 : random.pick([7, 7.5, 8, 8.5, 9]) }),
      custom_metric: null,
    })),
  };
  const pullUp = {
    index: 1,
    title: 'Pull Up',
    exercise_template_id: '1B2B1E7C',
    supersets_id: 0,
    sets: [0, 1].map((set) => ({
      index: set,
      type: 'normal',
      weight_kg: set === 0 ? 0 : null,
      reps: random.int(6, 12),
      distance_meters: null,
      duration_seconds: null,
      rpe: null,
    })),
  };
  const plank = {
    index: 2,
    title: 'Plank',
    notes: null,
    exercise_template_id: 'C6C9B8A0',
    supersets_id: 0,
    sets: [
      {
        index: 0,
        type: 'normal',
        weight_kg: null,
        reps: null,
        distance_meters: null,
        duration_seconds: 60,
        rpe: null,
      },
    ],
  };
  const run = {
    index: 3,
    title: 'Running',
    exercise_template_id: 'AC1BB830',
    supersets_id: null,
    sets: [
      {
        index: 0,
        type: 'normal',
        weight_kg: null,
        reps: null,
        distance_meters: 1600,
        duration_seconds: 540,
        rpe: null,
      },
    ],
  };
  return index % 2 === 0 ? [bench, pullUp, plank] : [bench, run];
}

export async function startHevyFake(): Promise<HevyFake> {
  const clock = createClock();
  const accounts = new Map<string, string>();
  const keys = new Map<string, Grant>();
  const grants: Grant[] = [];
  /** Workouts logged or edited through the fake, and deletions, by account. */
  const logged = new Map<string, Workout[]>();
  const deletions = new Map<string, { id: string; deleted_at: string }[]>();

  const userIdOf = (account: string) => {
    let id = accounts.get(account);
    if (!id) {
      id = randomUUID();
      accounts.set(account, id);
    }
    return id;
  };

  /** The generated workouts of an account on a UTC day number (none on every third day). */
  function generated(account: string, dayNumber: number): Workout[] {
    if (dayNumber % 3 === 0) return [];
    const random = seeded(`hevy|${account}|${dayNumber}`);
    const count = dayNumber % 7 === 1 ? 2 : 1;
    const workouts: Workout[] = [];
    for (let index = 0; index < count; index++) {
      // Every fifth day a late session that crosses UTC midnight; others in the morning or evening.
      const startMinute =
        index === 1 ? 23 * 60 + 40 : dayNumber % 5 === 0 ? 0 * 60 + 10 : random.int(6 * 60, 20 * 60);
      const start = dayNumber * MS_PER_DAY + startMinute * 60_000;
      const end = start + random.int(35, 80) * 60_000;
      // Logged when it ended; every fourth workout edited a day later.
      const updated =
        dayNumber % 4 === 0 && end + MS_PER_DAY <= clock.now() ? end + MS_PER_DAY : end + 60_000;
      const id = dayUuid(`hevy|${account}`, dayNumber, index, 1);
      workouts.push({
        id,
        title: index === 1 ? 'Late Pull' : dayNumber % 2 === 0 ? 'Push Day 💪' : 'Full Body',
        ...(dayNumber % 2 === 0 ? { routine_id: dayUuid('routine', 1, 0, 2) } : {}),
        ...(dayNumber % 3 === 1 ? { description: 'Felt strong <b>today</b>' } : {}),
        start_time: iso(start),
        end_time: iso(end),
        updated_at: iso(updated),
        created_at: iso(end + 60_000),
        exercises: exercisesFor(random, dayNumber + index),
      });
    }
    return workouts;
  }

  /** Every current workout of an account, and its deletion events. */
  function history(account: string): { workouts: Workout[]; deleted: { id: string; deleted_at: string }[] } {
    const today = Math.floor(clock.now() / MS_PER_DAY);
    const workouts: Workout[] = [];
    const deleted = [...(deletions.get(account) ?? [])];
    for (let day = today - HISTORY_DAYS; day <= today; day++) {
      for (const workout of generated(account, day)) {
        // Every 11th day's workout was deleted two days later (only a `deleted` event is left).
        if (day % 11 === 0) {
          deleted.push({ id: workout.id, deleted_at: iso(Date.parse(workout.updated_at) + 2 * MS_PER_DAY) });
          continue;
        }
        if (Date.parse(workout.updated_at) <= clock.now()) workouts.push(workout);
      }
    }
    workouts.push(...(logged.get(account) ?? []));
    // A deleted workout is gone from the list; only its `deleted` event is left.
    const gone = new Set(deleted.map((entry) => entry.id));
    return {
      workouts: workouts.filter((workout) => !gone.has(workout.id)),
      deleted: deleted.filter((entry) => Date.parse(entry.deleted_at) <= clock.now()),
    };
  }

  function keyOf(request: FakeRequest): Grant | FakeReply {
    const value = request.headers['api-key'];
    const key = typeof value === 'string' ? value : '';
    const grant = keys.get(key);
    if (!/^[0-9a-f-]{36}$/i.test(key) || !grant || grant.revoked)
      return { status: 401, body: { error: 'Unauthorized' } };
    return grant;
  }

  function paging(request: FakeRequest): { page: number; size: number } | FakeReply {
    const page = Number(request.query.get('page') ?? '1');
    const size = Number(request.query.get('pageSize') ?? '5');
    if (!Number.isInteger(page) || page < 1)
      return { status: 400, body: { error: 'Page must be 1 or greater' } };
    if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE)
      return { status: 400, body: { error: 'Invalid page size' } };
    return { page, size };
  }

  const pageCount = (total: number, size: number) => Math.ceil(total / size);

  const server = await startFakeServer({
    clock,
    faultReply(fault) {
      if (fault.kind === 'rate_limit')
        return {
          status: 429,
          headers: { 'retry-after': String(fault.retryAfterSeconds ?? 10) },
          body: { error: 'Too Many Requests' },
        };
      if (fault.kind === 'unauthorized') return { status: 401, body: { error: 'Unauthorized' } };
      return { status: fault.status ?? 500, body: { error: 'Internal Server Error' } };
    },
    routes: [
      {
        method: 'GET',
        path: '/v1/user/info',
        handler(request) {
          const grant = keyOf(request);
          if (!('account' in grant)) return grant;
          return {
            status: 200,
            body: {
              data: {
                id: userIdOf(grant.account),
                name: grant.account,
                url: `https://hevy.com/user/${grant.account}`,
              },
            },
          };
        },
      },
      {
        method: 'GET',
        path: '/v1/workouts',
        handler(request) {
          const grant = keyOf(request);
          if (!('account' in grant)) return grant;
          const paged = paging(request);
          if (!('size' in paged)) return paged;
          const all = history(grant.account).workouts.sort((a, b) =>
            b.start_time.localeCompare(a.start_time),
          );
          const workouts = all.slice((paged.page - 1) * paged.size, paged.page * paged.size);
          return {
            status: 200,
            body: { page: paged.page, page_count: pageCount(all.length, paged.size), workouts },
          };
        },
      },
      {
        method: 'GET',
        path: '/v1/workouts/events',
        handler(request) {
          const grant = keyOf(request);
          if (!('account' in grant)) return grant;
          const paged = paging(request);
          if (!('size' in paged)) return paged;
          const since = Date.parse(request.query.get('since') ?? '1970-01-01T00:00:00Z');
          if (Number.isNaN(since)) return { status: 400, body: { error: 'Invalid since' } };
          const { workouts, deleted } = history(grant.account);
          const events = [
            ...workouts
              .filter((workout) => Date.parse(workout.updated_at) > since)
              .map((workout) => ({ at: workout.updated_at, event: { type: 'updated', workout } })),
            ...deleted
              .filter((entry) => Date.parse(entry.deleted_at) > since)
              .map((entry) => ({ at: entry.deleted_at, event: { type: 'deleted', ...entry } })),
          ].sort((a, b) => b.at.localeCompare(a.at));
          const page = events.slice((paged.page - 1) * paged.size, paged.page * paged.size);
          return {
            status: 200,
            body: {
              page: paged.page,
              page_count: pageCount(events.length, paged.size),
              events: page.map((entry) => entry.event),
            },
          };
        },
      },
    ],
  });

  return {
    ...server,
    clientId: 'unused',
    clientSecret: 'unused',
    consent: { account: 'account-1', deny: false, grantScopes: null },
    grants,
    newKey(account = 'account-1') {
      const key = randomUUID();
      const grant: Grant = {
        account,
        scopes: [],
        refreshToken: null,
        accessToken: key,
        accessExpiresAt: Number.POSITIVE_INFINITY,
        revoked: false,
      };
      keys.set(key, grant);
      grants.push(grant);
      userIdOf(account);
      return key;
    },
    deleteKey(key) {
      const grant = keys.get(key);
      if (grant) grant.revoked = true;
    },
    userIdOf,
    logWorkout(account) {
      const now = clock.now();
      const start = now - 50 * 60_000;
      const workout: Workout = {
        id: randomUUID(),
        title: 'Evening Lift',
        start_time: iso(start),
        end_time: iso(now - 60_000),
        updated_at: iso(now),
        created_at: iso(now),
        exercises: exercisesFor(seeded(`logged|${now}`), 2),
      };
      const list = logged.get(account) ?? [];
      list.push(workout);
      logged.set(account, list);
      return { id: workout.id, start_time: workout.start_time };
    },
    deleteWorkout(account, id) {
      const list = deletions.get(account) ?? [];
      list.push({ id, deleted_at: iso(clock.now()) });
      deletions.set(account, list);
    },
    workoutsOn(account, date) {
      return history(account).workouts.filter((workout) => workout.start_time.slice(0, 10) === date);
    },
  };
}

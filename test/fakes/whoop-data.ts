import { dayUuid, seeded } from './fake-server.ts';
import { lazySamples, readProviderSample } from '../helpers/provider-samples.ts';

/**
 * Deterministic WHOOP API v2 records built from the spec examples in
 * ../shared/reference/provider-samples. Each calendar day the user lives in has one cycle (asleep the
 * evening before -> asleep that evening), its sleep and recovery, and up to two workouts. Ids
 * encode the day: cycle ids are numbers, sleep/workout ids UUIDs (see fake-server.ts dayUuid).
 */

type Json = Record<string, unknown>;

function sample(name: string): Json {
  return readProviderSample<Json>(`whoop-${name}`);
}
const firstRecord = (name: string) => ((sample(name).records as Json[])[0] ?? {}) as Json;

const templates = lazySamples(() => ({
  cycle: firstRecord('cycle_collection'),
  recovery: firstRecord('recovery_collection'),
  sleep: firstRecord('sleep_collection'),
  workout: firstRecord('workout_collection'),
  profile: sample('user_profile_basic'),
  body: sample('user_measurement_body'),
}));

export type WhoopUser = { seed: string; userId: number; offsetMinutes: number };

export const SLEEP_KIND = 1;
export const WORKOUT_KIND = 2;
const CYCLE_BASE = 90_000_000;
const DAY_MS = 86_400_000;

export const cycleIdOf = (day: number) => CYCLE_BASE + day;
export const dayOfCycleId = (id: number) => (id > CYCLE_BASE ? id - CYCLE_BASE : null);

const iso = (epochMs: number) => new Date(epochMs).toISOString();
const round = (value: number, digits: number) => Number(value.toFixed(digits));

export function tzd(offsetMinutes: number): string {
  if (offsetMinutes === 0) return 'Z';
  const abs = Math.abs(offsetMinutes);
  return `${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** When the user fell asleep the evening before `day` (the start of that day's cycle). */
export function cycleStart(user: WhoopUser, day: number): number {
  const random = seeded(`${user.seed}|bedtime|${day}`);
  return (
    day * DAY_MS -
    user.offsetMinutes * 60_000 -
    60 * 60_000 +
    random.int(-60, 90) * 60_000 +
    random.int(0, 59_999)
  );
}

export type DayRecords = {
  cycle: Json;
  sleep: Json;
  recovery: Json;
  workouts: Json[];
  startMs: number;
  endMs: number | null;
};

/** The records of `day`; `nowMs` decides whether its cycle has ended (and is fully scored). */
export function recordsOf(user: WhoopUser, day: number, nowMs: number): DayRecords | null {
  const startMs = cycleStart(user, day);
  if (startMs > nowMs) return null;
  const nextStart = cycleStart(user, day + 1);
  const endMs = nextStart <= nowMs ? nextStart : null;
  const random = seeded(`${user.seed}|day|${day}`);
  const common = { user_id: user.userId, timezone_offset: tzd(user.offsetMinutes) };
  const stamp = (atMs: number) => ({
    created_at: iso(atMs + 3_600_000),
    updated_at: iso(atMs + 3 * 3_600_000),
  });

  const sleepMs = random.int(6 * 60, 8 * 60 + 30) * 60_000;
  const sleepEnd = startMs + sleepMs;
  const light = Math.round(sleepMs * random.between(0.45, 0.55));
  const deep = Math.round(sleepMs * random.between(0.15, 0.22));
  const rem = Math.round(sleepMs * random.between(0.18, 0.24));
  const sleepId = dayUuid(user.seed, day, 0, SLEEP_KIND);
  const sleepDone = sleepEnd <= nowMs;
  const sleep: Json = {
    ...templates.sleep,
    ...common,
    ...stamp(sleepEnd),
    id: sleepId,
    cycle_id: cycleIdOf(day),
    v1_id: 500_000 + day,
    start: iso(startMs),
    end: iso(Math.min(sleepEnd, nowMs)),
    nap: false,
    score_state: sleepDone ? 'SCORED' : 'PENDING_SCORE',
    score: sleepDone
      ? {
          stage_summary: {
            total_in_bed_time_milli: sleepMs,
            total_awake_time_milli: sleepMs - light - deep - rem,
            total_no_data_time_milli: 0,
            total_light_sleep_time_milli: light,
            total_slow_wave_sleep_time_milli: deep,
            total_rem_sleep_time_milli: rem,
            sleep_cycle_count: random.int(3, 6),
            disturbance_count: random.int(2, 16),
          },
          sleep_needed: {
            ...((templates.sleep.score as Json).sleep_needed as Json),
            baseline_milli: 27_000_000 + random.int(0, 1_800_000),
          },
          respiratory_rate: round(random.between(13, 17.5), 8),
          sleep_performance_percentage: random.int(60, 100),
          sleep_consistency_percentage: random.int(50, 95),
          sleep_efficiency_percentage: round(((light + deep + rem) / sleepMs) * 100, 8),
        }
      : undefined,
  };
  const recovery: Json = {
    ...templates.recovery,
    ...stamp(sleepEnd),
    user_id: user.userId,
    cycle_id: cycleIdOf(day),
    sleep_id: sleepId,
    score_state: sleepDone ? 'SCORED' : 'PENDING_SCORE',
    score: sleepDone
      ? {
          user_calibrating: false,
          recovery_score: random.int(20, 99),
          resting_heart_rate: random.int(48, 66),
          hrv_rmssd_milli: round(random.between(25, 95), 6),
          spo2_percentage: round(random.between(94, 99), 4),
          skin_temp_celsius: round(random.between(32.5, 34.5), 2),
        }
      : undefined,
  };
  const workouts: Json[] = [];
  const count = random.int(0, 2);
  for (let index = 0; index < count; index++) {
    const workoutStart =
      day * DAY_MS - user.offsetMinutes * 60_000 + (7 + index * 10) * 3_600_000 + random.int(0, 90) * 60_000;
    const minutes = random.int(20, 90);
    const workoutEnd = workoutStart + minutes * 60_000;
    if (workoutEnd > nowMs) break;
    const sport = random.pick([
      ['running', 0],
      ['cycling', 1],
      ['weightlifting', 45],
      ['yoga', 44],
      ['hiking/rucking', 52],
      ['functional fitness', 48],
    ] as const);
    const share = [0.05, 0.15, 0.3, 0.3, 0.15, 0.05].map((part) => Math.round(part * minutes * 60_000));
    const scorable = day % 11 !== 0;
    workouts.push({
      ...templates.workout,
      ...common,
      ...stamp(workoutEnd),
      id: dayUuid(user.seed, day, index, WORKOUT_KIND),
      v1_id: 700_000 + day * 10 + index,
      start: iso(workoutStart),
      end: iso(workoutEnd),
      sport_name: sport[0],
      sport_id: sport[1],
      score_state: scorable ? 'SCORED' : 'UNSCORABLE',
      score: scorable
        ? {
            strain: round(random.between(4, 16), 4),
            average_heart_rate: random.int(100, 150),
            max_heart_rate: random.int(150, 190),
            kilojoule: round(random.between(600, 3000), 6),
            percent_recorded: 100,
            distance_meter:
              sport[0] === 'running' || sport[0] === 'cycling'
                ? round(random.between(3000, 30000), 4)
                : undefined,
            altitude_gain_meter: round(random.between(0, 300), 4),
            altitude_change_meter: round(random.between(-20, 20), 4),
            zone_durations: {
              zone_zero_milli: share[0],
              zone_one_milli: share[1],
              zone_two_milli: share[2],
              zone_three_milli: share[3],
              zone_four_milli: share[4],
              zone_five_milli: share[5],
            },
          }
        : undefined,
    });
  }
  const cycle: Json = {
    ...templates.cycle,
    ...common,
    ...stamp(startMs),
    id: cycleIdOf(day),
    start: iso(startMs),
    end: endMs === null ? undefined : iso(endMs),
    score_state: 'SCORED',
    score: {
      strain: round(random.between(4, 18), 7),
      kilojoule: round(random.between(7000, 13000), 3),
      average_heart_rate: random.int(58, 80),
      max_heart_rate: random.int(120, 185),
    },
  };
  return { cycle, sleep, recovery, workouts, startMs, endMs };
}

/**
 * The same day's records in WHOOP's v1 shape, for records still answered that way: v1 ids are
 * longs, not UUIDs (developer.whoop.com/docs/developing/v1-v2-migration: "Same structure, but
 * UUID instead of long for sleepId / workoutId"); a v1 sleep has no `cycle_id` and no `v1_id`, a
 * v1 recovery names its sleep by that long, and a v1 workout has `sport_id` without
 * `sport_name` and its zones under `zone_duration` (WHOOP's v1 response samples, e.g. workout
 * 1043 and sleep 93845).
 */
export function inV1Shape(records: DayRecords): DayRecords {
  const { id: _uuid, cycle_id: _cycle, v1_id: sleepV1, ...sleep } = records.sleep;
  return {
    ...records,
    sleep: { ...sleep, id: sleepV1 },
    recovery: { ...records.recovery, sleep_id: sleepV1 },
    workouts: records.workouts.map((workout) => {
      const { id: _id, v1_id: workoutV1, sport_name: _name, score, ...rest } = workout;
      const scored = score as Json | undefined;
      const { zone_durations: zones, ...scoreRest } = scored ?? {};
      return {
        ...rest,
        id: workoutV1,
        ...(scored ? { score: { ...scoreRest, zone_duration: zones } } : {}),
      };
    }),
  };
}

export function profileOf(user: WhoopUser): Json {
  return {
    ...templates.profile,
    user_id: user.userId,
    email: `${user.seed.replace(/\W/g, '.')}@example.test`,
  };
}

export function bodyOf(user: WhoopUser): Json {
  const random = seeded(`${user.seed}|body`);
  return {
    ...templates.body,
    weight_kilogram: round(random.between(55, 100), 4),
    max_heart_rate: random.int(180, 200),
  };
}

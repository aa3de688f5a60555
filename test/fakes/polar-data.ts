import { createHash } from 'node:crypto';
import { seeded } from './fake-server.ts';
import { lazySamples, readProviderSample } from '../helpers/provider-samples.ts';

/**
 * Deterministic Polar AccessLink v3 documents for any day, built from the spec-example samples
 * in ../shared/reference/provider-samples (each document is the sample with values, times and ids
 * varied per user and day), so field names — snake_case and kebab-case mixed, as Polar writes
 * them — nesting and value formats stay the spec's. A day is a number of days since 1970-01-01;
 * local times are written in the user's offset.
 */

type Json = Record<string, unknown>;

function sample<T = Json>(name: string): T {
  return readProviderSample<T>(`polar-${name}`);
}

const templates = lazySamples(() => ({
  exercise: (sample<Json[]>('exercises_list')[0] ?? {}) as Json,
  activity: (sample<Json[]>('activities_list')[0] ?? {}) as Json,
  night: (sample<{ nights: Json[] }>('sleep_nights').nights[0] ?? {}) as Json,
  recharge: (sample<{ recharges: Json[] }>('nightly_recharge').recharges[0] ?? {}) as Json,
  physical: sample('physical_info'),
  user: sample('user'),
}));

export type PolarUser = { seed: string; polarUserId: number; offsetMinutes: number };

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const pad = (value: number) => String(value).padStart(2, '0');
export const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const localMidnight = (day: number, user: PolarUser) => day * DAY_MS - user.offsetMinutes * MINUTE_MS;
/** Wall-clock time in the user's zone without a zone, as Polar writes local times. */
const local = (epochMs: number, user: PolarUser, length = 19) =>
  new Date(epochMs + user.offsetMinutes * MINUTE_MS).toISOString().slice(0, length);
const zone = (offset: number) =>
  `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
const withZone = (epochMs: number, user: PolarUser) => `${local(epochMs, user)}${zone(user.offsetMinutes)}`;
const clock = (epochMs: number, user: PolarUser) => local(epochMs, user).slice(11, 16);
const round = (value: number, digits = 0) => Number(value.toFixed(digits));

/** ISO 8601 duration as Polar writes it (`PT2H44M`, `PT45M30S`). */
export function isoDuration(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = round(seconds % 60, 3);
  return `PT${hours ? `${hours}H` : ''}${minutes ? `${minutes}M` : ''}${rest || (!hours && !minutes) ? `${rest}S` : ''}`;
}

// --- exercises ------------------------------------------------------------------------------

const SPORTS = [
  ['RUNNING', 'ROAD_RUNNING'],
  ['CYCLING', 'ROAD_BIKING'],
  ['WALKING', 'WALKING'],
  ['OTHER', 'STRENGTH_TRAINING'],
] as const;

/** Polar's hashed exercise ids: 4 hash characters, then (day, index) in base 36. */
export function exerciseId(user: PolarUser, day: number, index: number): string {
  const hash = createHash('sha256')
    .update(`${user.seed}|${day}|${index}`)
    .digest('hex')
    .slice(0, 4)
    .toUpperCase();
  return `${hash}${(day * 8 + index).toString(36).toUpperCase()}`;
}

export function parseExerciseId(user: PolarUser, id: string): { day: number; index: number } | null {
  const packed = Number.parseInt(id.slice(4), 36);
  if (!Number.isFinite(packed)) return null;
  const day = Math.floor(packed / 8);
  const index = packed % 8;
  return exerciseId(user, day, index) === id ? { day, index } : null;
}

export type ExerciseOptions = { samples: boolean; zones: boolean; route: boolean };

function exerciseSeries(random: ReturnType<typeof seeded>, seconds: number, moves: boolean, start: number) {
  const hr: number[] = [];
  const speed: number[] = [];
  const altitude: number[] = [];
  const distance: number[] = [];
  const route: Json[] = [];
  let bpm = 95;
  let kmh = moves ? 9 : 0;
  let meters = 0;
  let height = 40;
  let lat = 60.2 + random.between(-0.05, 0.05);
  let lng = 24.9 + random.between(-0.05, 0.05);
  for (let second = 0; second < seconds; second++) {
    bpm = Math.max(70, Math.min(185, bpm + random.between(-1.5, 1.9)));
    kmh = moves ? Math.max(4, Math.min(35, kmh + random.between(-0.4, 0.4))) : 0;
    meters += kmh / 3.6;
    height += random.between(-0.2, 0.2);
    hr.push(round(bpm));
    speed.push(round(kmh, 1));
    altitude.push(round(height, 1));
    distance.push(round(meters, 1));
    if (moves && second % 5 === 0) {
      lat += (kmh / 3.6) * 5 * 0.000009 * random.between(-1, 1);
      lng += (kmh / 3.6) * 5 * 0.000018 * random.between(0.2, 1);
      route.push({
        latitude: round(lat, 8),
        longitude: round(lng, 8),
        time: isoDuration(second),
        satellites: random.int(4, 12),
        fix: 1,
      });
    }
  }
  // A short sensor gap in the heart-rate series, written as null entries like Polar does.
  const csv = (values: number[], gapAt = -1) =>
    values.map((value, index) => (index >= gapAt && index < gapAt + 3 ? 'null' : value)).join(',');
  return {
    samples: [
      { 'recording-rate': 1, 'sample-type': '0', data: csv(hr, Math.floor(seconds / 2)) },
      ...(moves
        ? [
            { 'recording-rate': 1, 'sample-type': '1', data: csv(speed) },
            { 'recording-rate': 1, 'sample-type': '10', data: csv(distance) },
          ]
        : []),
      { 'recording-rate': 1, 'sample-type': '3', data: csv(altitude) },
    ],
    route,
    meters,
    hr,
    start,
  };
}

export function exercisesOf(user: PolarUser, day: number, options: ExerciseOptions): Json[] {
  const random = seeded(`${user.seed}|exercise|${day}`);
  const count = random.next() < 0.3 ? 0 : random.int(1, 2);
  return Array.from({ length: count }, (_, index) => {
    const [sport, detailed] = random.pick(SPORTS);
    const moves = sport !== 'OTHER';
    const start =
      localMidnight(day, user) +
      (7 + index * 9) * 3_600_000 +
      random.int(0, 90) * MINUTE_MS +
      random.int(0, 59) * 1000;
    const seconds = random.int(20, 70) * 60 + random.int(0, 59);
    const series = exerciseSeries(seeded(`${user.seed}|exercise|${day}|${index}`), seconds, moves, start);
    const hr = series.hr;
    const document: Json = {
      ...templates.exercise,
      id: exerciseId(user, day, index),
      upload_time: new Date(start + seconds * 1000 + random.int(2, 40) * MINUTE_MS).toISOString(),
      polar_user: `https://www.polaraccesslink.com/v3/users/${user.polarUserId}`,
      device: 'Polar Vantage V3',
      device_id: `${user.polarUserId.toString(16).toUpperCase().padStart(8, '0').slice(-8)}`,
      start_time: local(start, user),
      start_time_utc_offset: user.offsetMinutes,
      duration: isoDuration(seconds),
      calories: Math.round((seconds / 60) * random.between(6, 12)),
      distance: moves ? round(series.meters) : undefined,
      heart_rate: {
        average: Math.round(hr.reduce((sum, bpm) => sum + bpm, 0) / hr.length),
        maximum: Math.max(...hr),
      },
      training_load: round(random.between(20, 200), 2),
      sport,
      detailed_sport_info: detailed,
      has_route: moves,
      'running-index': sport === 'RUNNING' ? random.int(40, 60) : undefined,
      training_load_pro: {
        date: isoDay(day),
        'cardio-load': round(random.between(20, 150), 1),
        'muscle-load': 0,
        'perceived-load': 0,
      },
      heart_rate_zones: undefined,
      samples: undefined,
      route: undefined,
      club_id: undefined,
      club_name: undefined,
    };
    if (options.zones) {
      const bounds = [95, 114, 133, 152, 171, 190];
      document.heart_rate_zones = bounds.slice(0, 5).map((lower, zoneIndex) => ({
        index: zoneIndex,
        'lower-limit': lower,
        'upper-limit': bounds[zoneIndex + 1],
        'in-zone': isoDuration(
          hr.filter((bpm) => bpm >= lower && bpm < (bounds[zoneIndex + 1] as number)).length,
        ),
      }));
    }
    if (options.samples) document.samples = series.samples;
    if (options.route && moves) document.route = series.route;
    return JSON.parse(JSON.stringify(document)) as Json;
  });
}

// --- daily activity and continuous heart rate -----------------------------------------------

function minuteSteps(user: PolarUser, day: number): number[] {
  const random = seeded(`${user.seed}|steps|${day}`);
  return Array.from({ length: 1440 }, (_, minute) => {
    if (minute < 7 * 60 || minute > 22 * 60 + 30) return 0;
    return random.next() < 0.35 ? random.int(5, 120) : 0;
  });
}

export function activityOf(
  user: PolarUser,
  day: number,
  options: { steps: boolean; zones: boolean; stamps: boolean },
): Json {
  const random = seeded(`${user.seed}|activity|${day}`);
  const steps = minuteSteps(user, day);
  const total = steps.reduce((sum, count) => sum + count, 0);
  const midnight = localMidnight(day, user);
  const active = steps.filter((count) => count > 0).length * 60;
  const samples: Json = { date: isoDay(day) };
  if (options.steps) {
    // Polar filters out repeats: a sample is listed only when the count changes.
    const list: Json[] = [];
    let previous = -1;
    steps.forEach((count, minute) => {
      if (count !== previous)
        list.push({ steps: count, timestamp: local(midnight + minute * MINUTE_MS, user, 16) });
      previous = count;
    });
    samples.steps = { interval_ms: 60_000, total_steps: total, samples: list };
  }
  if (options.zones) {
    const plan: [number, string][] = [
      [0, 'SLEEP'],
      [7 * 60 + random.int(0, 30), 'SEDENTARY'],
      [9 * 60, 'LIGHT'],
      [12 * 60 + random.int(0, 30), 'MODERATE'],
      [13 * 60, 'SEDENTARY'],
      [18 * 60, 'VIGOROUS'],
      [18 * 60 + random.int(20, 60), 'LIGHT'],
      [23 * 60, 'SLEEP'],
    ];
    samples.activity_zones = {
      samples: plan.map(([minute, zone]) => ({
        zone,
        timestamp: local(midnight + minute * MINUTE_MS, user),
      })),
    };
  }
  if (options.stamps)
    samples.inactivity_stamps = [
      { stamp: local(midnight + (15 * 60 + random.int(0, 59)) * MINUTE_MS, user, 16) },
    ];
  const activeCalories = Math.round(total * 0.045 + random.int(100, 300));
  return {
    ...templates.activity,
    start_time: local(midnight, user),
    end_time: local(midnight + DAY_MS - 1000, user),
    active_duration: isoDuration(active),
    inactive_duration: isoDuration(16 * 3600 - Math.min(active, 16 * 3600)),
    daily_activity: round(Math.min(200, (active / (3 * 3600)) * 100), 1),
    calories: activeCalories + 1650,
    active_calories: activeCalories,
    steps: total,
    inactivity_alert_count: options.stamps ? 1 : random.int(0, 2),
    distance_from_steps: round(total * 0.72, 2),
    samples,
  };
}

export function continuousHeartRateOf(user: PolarUser, day: number): Json {
  const random = seeded(`${user.seed}|chr|${day}`);
  const first = random.int(0, 240);
  const samples = [];
  for (let second = first; second < 86_400; second += 300) {
    const hour = second / 3600;
    const base = hour < 7 || hour > 23 ? 56 : 72;
    samples.push({
      heart_rate: Math.round(base + random.between(-6, 14)),
      sample_time: `${pad(Math.floor(second / 3600))}:${pad(Math.floor((second % 3600) / 60))}:${pad(second % 60)}`,
    });
  }
  return {
    polar_user: `https://www.polaraccesslink.com/v3/users/${user.polarUserId}`,
    date: isoDay(day),
    heart_rate_samples: samples,
  };
}

// --- sleep and nightly recharge -------------------------------------------------------------

/** The night ending on the morning of `day` (Polar dates a night by its morning). */
export function nightOf(user: PolarUser, day: number): Json {
  const random = seeded(`${user.seed}|sleep|${day}`);
  const start = localMidnight(day, user) - random.int(20, 110) * MINUTE_MS - random.int(0, 59) * 1000;
  const end = localMidnight(day, user) + (6 * 60 + random.int(0, 120)) * MINUTE_MS + random.int(0, 59) * 1000;
  const hypnogram: Record<string, number> = {};
  const seconds: Record<number, number> = { 0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 };
  for (let at = start - (start % MINUTE_MS); at < end;) {
    const stage = at === start - (start % MINUTE_MS) ? 2 : random.pick([1, 2, 3, 3, 4, 4, 0]);
    const next = Math.min(end, at + random.int(8, 50) * MINUTE_MS);
    hypnogram[clock(at, user)] = stage;
    seconds[stage] = (seconds[stage] ?? 0) + (next - Math.max(at, start)) / 1000;
    at = next;
  }
  const heart: Record<string, number> = {};
  for (let at = start + 2 * MINUTE_MS; at < end; at += 5 * MINUTE_MS)
    heart[clock(at, user)] = Math.round(random.between(48, 68));
  const wake = Math.round(seconds[0] ?? 0);
  return {
    ...templates.night,
    polar_user: `https://www.polaraccesslink.com/v3/users/${user.polarUserId}`,
    date: isoDay(day),
    sleep_start_time: withZone(start, user),
    sleep_end_time: withZone(end, user),
    device_id: user.polarUserId.toString(16).toUpperCase().padStart(8, '0').slice(-8),
    continuity: round(random.between(2, 5), 1),
    continuity_class: random.int(1, 5),
    light_sleep: Math.round((seconds[2] ?? 0) + (seconds[3] ?? 0)),
    deep_sleep: Math.round(seconds[4] ?? 0),
    rem_sleep: Math.round(seconds[1] ?? 0),
    unrecognized_sleep_stage: 0,
    sleep_score: random.int(55, 95),
    total_interruption_duration: wake,
    sleep_charge: random.int(1, 5),
    sleep_rating: random.int(0, 5),
    short_interruption_duration: Math.round(wake * 0.3),
    long_interruption_duration: Math.round(wake * 0.7),
    sleep_cycles: random.int(3, 6),
    group_duration_score: round(random.between(40, 100), 1),
    group_solidity_score: round(random.between(40, 100), 1),
    group_regeneration_score: round(random.between(40, 100), 1),
    hypnogram,
    heart_rate_samples: heart,
  };
}

export function rechargeOf(user: PolarUser, day: number): Json {
  const random = seeded(`${user.seed}|recharge|${day}`);
  const night = nightOf(user, day);
  const start = Date.parse(night.sleep_start_time as string) + 30 * MINUTE_MS;
  const hrv: Record<string, number> = {};
  const breathing: Record<string, number> = {};
  for (let at = start; at < start + 4 * 3_600_000; at += 5 * MINUTE_MS) {
    hrv[clock(at, user)] = Math.round(random.between(20, 70));
    breathing[clock(at + 2 * MINUTE_MS, user)] = round(random.between(12, 17), 1);
  }
  const hrvValues = Object.values(hrv);
  return {
    ...templates.recharge,
    polar_user: `https://www.polaraccesslink.com/v3/users/${user.polarUserId}`,
    date: isoDay(day),
    heart_rate_avg: random.int(48, 62),
    beat_to_beat_avg: random.int(900, 1200),
    heart_rate_variability_avg: Math.round(
      hrvValues.reduce((sum, value) => sum + value, 0) / hrvValues.length,
    ),
    breathing_rate_avg: round(random.between(12, 17), 1),
    nightly_recharge_status: random.int(1, 6),
    ans_charge: round(random.between(-10, 10), 1),
    ans_charge_status: random.int(1, 5),
    hrv_samples: hrv,
    breathing_samples: breathing,
  };
}

// --- profile --------------------------------------------------------------------------------

export function physicalInfoOf(user: PolarUser, nowMs: number): Json {
  const random = seeded(`${user.seed}|physical`);
  const modified = Math.floor(nowMs / DAY_MS) * DAY_MS - random.int(1, 20) * DAY_MS + 12 * 3_600_000;
  return {
    ...templates.physical,
    weight: round(random.between(55, 95), 1),
    height: round(random.between(155, 195)),
    created: new Date(modified - 200 * DAY_MS).toISOString().replace('.000Z', 'Z'),
    modified: new Date(modified).toISOString().replace('.000Z', 'Z'),
    birthday: `19${random.int(60, 99)}-${pad(random.int(1, 12))}-${pad(random.int(1, 28))}`,
    gender: random.pick(['MALE', 'FEMALE']),
    maximum_heart_rate: random.int(175, 200),
    resting_heart_rate: random.int(45, 65),
    vo2_max: random.int(35, 60),
  };
}

export function userOf(user: PolarUser, memberId: string, registeredAt: number): Json {
  const info = physicalInfoOf(user, registeredAt);
  return {
    ...templates.user,
    'polar-user-id': user.polarUserId,
    'member-id': memberId,
    'registration-date': new Date(registeredAt).toISOString(),
    birthdate: info.birthday,
    gender: info.gender,
    weight: info.weight,
    height: info.height,
    'extra-info': [],
  };
}

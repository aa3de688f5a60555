import { dayUuid, seeded } from './fake-server.ts';
import { lazySamples, readProviderSample } from '../helpers/provider-samples.ts';

/**
 * Deterministic Oura API v2 documents for any day, built from the recorded samples in
 * ../shared/reference/provider-samples (each generated document is a copy of the sample with its
 * values and ids varied per user and day), so field names, nesting and value formats stay exactly
 * those of real responses. A day is a number of days since 1970-01-01.
 */

type Json = Record<string, unknown>;

function sample(name: string): Json {
  return readProviderSample<Json>(`oura-${name}`);
}
const firstOf = (name: string) => ((sample(name).data as Json[])[0] ?? {}) as Json;

const templates = lazySamples(() => ({
  workout: firstOf('workout'),
  session: firstOf('session'),
  sleep: firstOf('sleep'),
  daily_activity: firstOf('daily_activity'),
  daily_sleep: firstOf('daily_sleep'),
  daily_readiness: firstOf('daily_readiness'),
  daily_spo2: firstOf('daily_spo2'),
  daily_stress: firstOf('daily_stress'),
  vo2_max: firstOf('vo2_max'),
}));

export const ouraDocumentKinds = [
  'workout',
  'session',
  'sleep',
  'daily_activity',
  'daily_sleep',
  'daily_readiness',
  'daily_spo2',
  'daily_stress',
  'vo2_max',
  'tag',
  'enhanced_tag',
] as const;
export type OuraDocumentKind = (typeof ouraDocumentKinds)[number];
export const kindCodes: Readonly<Record<OuraDocumentKind, number>> = Object.fromEntries(
  ouraDocumentKinds.map((kind, index) => [kind, index + 1]),
) as Record<OuraDocumentKind, number>;

export type OuraUser = { seed: string; offsetMinutes: number };

const DAY_MS = 86_400_000;
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** LocalizedDateTime as Oura writes it: `2024-10-10T01:01:59+02:00` (or with `.000` in series). */
export function localized(epochMs: number, offsetMinutes: number, millis = false): string {
  const local = new Date(epochMs + offsetMinutes * 60_000).toISOString();
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${millis ? local.slice(0, 23) : local.slice(0, 19)}${zone}`;
}

const localMidnight = (day: number, user: OuraUser) => day * DAY_MS - user.offsetMinutes * 60_000;
const round = (value: number, digits = 0) => Number(value.toFixed(digits));

function series(start: number, user: OuraUser, interval: number, items: (number | null)[]) {
  return { interval, items, timestamp: localized(start, user.offsetMinutes, true) };
}

function workouts(user: OuraUser, day: number): Json[] {
  const random = seeded(`${user.seed}|workout|${day}`);
  const count = random.int(0, 2);
  return Array.from({ length: count }, (_, index) => {
    const start = localMidnight(day, user) + (7 + index * 8) * 3_600_000 + random.int(0, 120) * 60_000;
    const minutes = random.int(15, 75);
    const activity = random.pick(['walking', 'running', 'cycling', 'strengthTraining', 'yoga']);
    const moves = activity === 'walking' || activity === 'running' || activity === 'cycling';
    return {
      ...templates.workout,
      id: dayUuid(user.seed, day, index, kindCodes.workout),
      activity,
      calories: round(minutes * random.between(3, 11), 3),
      day: isoDay(day),
      distance: moves ? minutes * 60 * random.between(1.2, 6) : null,
      start_datetime: localized(start, user.offsetMinutes),
      end_datetime: localized(start + minutes * 60_000, user.offsetMinutes),
      intensity: random.pick(['easy', 'moderate', 'hard']),
      label: null,
      source: random.pick(['autodetected', 'confirmed', 'manual', 'workout_heart_rate']),
    };
  });
}

function sessions(user: OuraUser, day: number): Json[] {
  if (day % 3 !== 0) return [];
  const random = seeded(`${user.seed}|session|${day}`);
  const start =
    localMidnight(day, user) + 16 * 3_600_000 + random.int(0, 90) * 60_000 + random.int(0, 59) * 1000;
  const seconds = random.int(180, 900);
  const count = Math.floor(seconds / 5);
  return [
    {
      ...templates.session,
      id: dayUuid(user.seed, day, 0, kindCodes.session),
      day: isoDay(day),
      start_datetime: localized(start, user.offsetMinutes),
      end_datetime: localized(start + seconds * 1000, user.offsetMinutes),
      type: random.pick(['breathing', 'meditation', 'relaxation']),
      heart_rate: series(
        start,
        user,
        5,
        Array.from({ length: count }, () => round(random.between(55, 75))),
      ),
      heart_rate_variability: series(
        start,
        user,
        5,
        Array.from({ length: count }, () => round(random.between(20, 60))),
      ),
      mood: random.pick(['same', 'good', 'great']),
      motion_count: series(
        start,
        user,
        5,
        Array.from({ length: count }, () => round(random.between(0, 30))),
      ),
    },
  ];
}

function phases(random: ReturnType<typeof seeded>, length: number): string {
  let text = '';
  let current = '4';
  for (let index = 0; index < length; index++) {
    if (random.next() < 0.08) current = random.pick(['1', '2', '2', '3', '4']);
    text += index < 20 || index > length - 10 ? '4' : current;
  }
  return text;
}

function sleepPeriod(
  user: OuraUser,
  day: number,
  index: number,
  start: number,
  seconds: number,
  type: string,
): Json {
  const random = seeded(`${user.seed}|sleep|${day}|${index}`);
  const fine = phases(random, Math.floor(seconds / 30));
  let coarse = '';
  for (let offset = 0; offset < fine.length; offset += 10) coarse += fine.charAt(offset);
  const count = (character: string) => fine.split(character).length - 1;
  const [deep, light, rem, awake] = ['1', '2', '3', '4'].map(
    (character) => count(character) * 30,
  ) as number[];
  const total = (deep as number) + (light as number) + (rem as number);
  const heart = Array.from({ length: coarse.length }, () =>
    random.next() < 0.05 ? null : round(random.between(52, 72)),
  );
  const hrv = heart.map((bpm) => (bpm === null ? null : round(random.between(15, 70))));
  const present = heart.filter((bpm): bpm is number => bpm !== null);
  const main = type === 'long_sleep';
  return {
    ...templates.sleep,
    id: dayUuid(user.seed, day, index, kindCodes.sleep),
    average_breath: round(random.between(12, 17), 3),
    average_heart_rate: round(present.reduce((sum, bpm) => sum + bpm, 0) / Math.max(1, present.length), 3),
    average_hrv: round(random.between(25, 60)),
    awake_time: awake,
    bedtime_end: localized(start + seconds * 1000, user.offsetMinutes),
    bedtime_start: localized(start, user.offsetMinutes),
    day: isoDay(day),
    deep_sleep_duration: deep,
    efficiency: round((total / seconds) * 100),
    heart_rate: series(start, user, 300, heart),
    hrv: series(start, user, 300, hrv),
    latency: random.int(5, 30) * 60,
    light_sleep_duration: light,
    lowest_heart_rate: Math.min(...present),
    movement_30_sec: fine.replace(/[1-4]/g, () => String(random.int(1, 3))),
    period: index,
    readiness: main
      ? {
          contributors: {
            ...((templates.sleep.readiness as Json).contributors as Json),
            recovery_index: random.int(20, 100),
          },
          score: random.int(55, 95),
          temperature_deviation: round(random.between(-0.6, 0.6), 2),
          temperature_trend_deviation: round(random.between(-0.3, 0.3), 2),
        }
      : null,
    rem_sleep_duration: rem,
    restless_periods: random.int(100, 350),
    sleep_phase_5_min: coarse,
    sleep_phase_30_sec: fine,
    time_in_bed: seconds,
    total_sleep_duration: total,
    type,
  };
}

function sleeps(user: OuraUser, day: number): Json[] {
  const random = seeded(`${user.seed}|night|${day}`);
  const bedtime =
    localMidnight(day, user) - 60 * 60_000 + random.int(-60, 90) * 60_000 + random.int(0, 59) * 1000;
  const night = sleepPeriod(user, day, 0, bedtime, random.int(780, 1020) * 30, 'long_sleep');
  if (day % 4 !== 0) return [night];
  const napStart = localMidnight(day, user) + 14 * 3_600_000 + random.int(0, 60) * 60_000;
  return [night, sleepPeriod(user, day, 1, napStart, random.int(60, 120) * 30, 'sleep')];
}

function dailyActivity(user: OuraUser, day: number): Json[] {
  const random = seeded(`${user.seed}|daily_activity|${day}`);
  const levels = Array.from({ length: 288 }, (_, slot) =>
    slot < 36 || slot > 250 ? '1' : String(random.pick([1, 2, 2, 2, 3, 3, 4, 5])),
  ).join('');
  const seconds = (level: string) => (levels.split(level).length - 1) * 300;
  const active = random.int(200, 1200);
  return [
    {
      ...templates.daily_activity,
      id: dayUuid(user.seed, day, 0, kindCodes.daily_activity),
      class_5_min: levels,
      score: random.int(60, 99),
      active_calories: active,
      average_met_minutes: round(random.between(1.2, 2.2), 3),
      equivalent_walking_distance: random.int(4000, 20000),
      high_activity_time: seconds('5'),
      medium_activity_time: seconds('4'),
      low_activity_time: seconds('3'),
      sedentary_time: seconds('2'),
      resting_time: seconds('1'),
      non_wear_time: seconds('0'),
      inactivity_alerts: random.int(0, 3),
      met: series(
        localMidnight(day, user) + 4 * 3_600_000,
        user,
        60,
        Array.from({ length: 1440 }, () => round(random.between(0.9, 6), 1)),
      ),
      steps: random.int(3000, 18000),
      total_calories: active + random.int(1600, 2300),
      day: isoDay(day),
      timestamp: localized(localMidnight(day, user) + 4 * 3_600_000, user.offsetMinutes),
    },
  ];
}

function daily(
  kind: 'daily_sleep' | 'daily_readiness' | 'daily_spo2' | 'daily_stress',
  user: OuraUser,
  day: number,
): Json[] {
  const random = seeded(`${user.seed}|${kind}|${day}`);
  const base: Json = {
    ...templates[kind],
    id: dayUuid(user.seed, day, 0, kindCodes[kind]),
    day: isoDay(day),
  };
  if ('timestamp' in base) base.timestamp = `${isoDay(day)}T00:00:00+00:00`;
  if ('score' in base) base.score = random.int(55, 95);
  if ('contributors' in base) {
    base.contributors = Object.fromEntries(
      Object.keys(base.contributors as Json).map((name) => [name, random.int(40, 100)]),
    );
  }
  if (kind === 'daily_readiness') {
    base.temperature_deviation = round(random.between(-0.5, 0.5), 2);
    base.temperature_trend_deviation = round(random.between(-0.2, 0.2), 2);
  }
  if (kind === 'daily_spo2') {
    base.spo2_percentage = { average: round(random.between(94, 99), 3) };
    base.breathing_disturbance_index = random.int(0, 20);
  }
  if (kind === 'daily_stress') {
    base.stress_high = random.int(0, 20) * 900;
    base.recovery_high = random.int(0, 20) * 900;
    base.day_summary = random.pick(['restored', 'normal', 'stressful']);
  }
  return [base];
}

function vo2Max(user: OuraUser, day: number): Json[] {
  if (day % 7 !== 0) return [];
  const random = seeded(`${user.seed}|vo2_max|${day}`);
  return [
    {
      ...templates.vo2_max,
      id: dayUuid(user.seed, day, 0, kindCodes.vo2_max),
      day: isoDay(day),
      timestamp: `${isoDay(day)}T14:15:22Z`,
      vo2_max: random.int(38, 55),
    },
  ];
}

function tags(user: OuraUser, day: number): Json[] {
  if (day % 5 !== 0) return [];
  const at = localMidnight(day, user) + 21 * 3_600_000;
  return [
    {
      id: dayUuid(user.seed, day, 0, kindCodes.tag),
      day: isoDay(day),
      text: 'late dinner',
      timestamp: localized(at, user.offsetMinutes),
      tags: ['tag_generic_late_meal'],
    },
  ];
}

function enhancedTags(user: OuraUser, day: number): Json[] {
  if (day % 5 !== 2) return [];
  const at = localMidnight(day, user) + 9 * 3_600_000;
  return [
    {
      id: dayUuid(user.seed, day, 0, kindCodes.enhanced_tag),
      tag_type_code: 'tag_generic_caffeine',
      start_time: localized(at, user.offsetMinutes),
      end_time: null,
      start_day: isoDay(day),
      end_day: null,
      comment: 'double espresso',
      custom_name: null,
    },
  ];
}

/** The documents of one kind on one day (sorted as Oura returns them: by time). */
export function documentsOf(kind: OuraDocumentKind, user: OuraUser, day: number): Json[] {
  switch (kind) {
    case 'workout':
      return workouts(user, day);
    case 'session':
      return sessions(user, day);
    case 'sleep':
      return sleeps(user, day);
    case 'daily_activity':
      return dailyActivity(user, day);
    case 'vo2_max':
      return vo2Max(user, day);
    case 'tag':
      return tags(user, day);
    case 'enhanced_tag':
      return enhancedTags(user, day);
    default:
      return daily(kind, user, day);
  }
}

/** Heart-rate rows on Oura's 5-minute grid within [fromMs, toMs): UTC timestamps + unix ms. */
export function heartRateRows(user: OuraUser, fromMs: number, toMs: number): Json[] {
  const step = 300_000;
  const rows: Json[] = [];
  for (let at = Math.ceil(fromMs / step) * step; at < toMs; at += step) {
    const random = seeded(`${user.seed}|hr|${at}`);
    const hour = new Date(at + user.offsetMinutes * 60_000).getUTCHours();
    const asleep = hour < 6 || hour >= 23;
    rows.push({
      bpm: asleep ? random.int(50, 62) : random.int(62, 110),
      source: asleep ? 'sleep' : 'awake',
      timestamp: `${new Date(at).toISOString().slice(0, 19)}+00:00`,
      timestamp_unix: at,
    });
  }
  return rows;
}

export function personalInfo(user: OuraUser, userId: string): Json {
  const random = seeded(`${user.seed}|personal_info`);
  // Written here, not from the sample: the token and fault tests read it and must run without
  // the shared samples. The fields are Oura's PersonalInfoResponse (id, age, weight in kg,
  // height in m, biological_sex, email).
  return {
    id: userId,
    age: random.int(20, 70),
    weight: round(random.between(55, 95), 1),
    height: round(random.between(1.55, 1.95), 2),
    biological_sex: random.int(0, 1) === 0 ? 'female' : 'male',
    email: `${user.seed}@example.test`,
  };
}

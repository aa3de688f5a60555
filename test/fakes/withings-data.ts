import { createHash } from 'node:crypto';
import { seeded } from './fake-server.ts';
import { lazySamples, readProviderSample } from '../helpers/provider-samples.ts';

/**
 * Deterministic Withings documents for any day, built from the spec-example samples in
 * ../shared/reference/provider-samples (each document is the sample with values, times and ids
 * varied per user and day). Times are unix seconds; the user lives in `timezone` (an IANA name,
 * written on every document that carries one). A day is a number of days since 1970-01-01 and
 * documents are placed at that day's UTC wall-clock hours shifted by `offsetMinutes` (the
 * zone's standard offset is close enough for a fake; the normalizer resolves the zone itself).
 */

type Json = Record<string, unknown>;

function body(name: string): Json {
  return readProviderSample<{ body: Json }>(`withings-${name}`).body;
}
const first = (name: string, key: string) => ((body(name)[key] as Json[])[0] ?? {}) as Json;

const templates = lazySamples(() => ({
  group: first('measure_getmeas', 'measuregrps'),
  activity: first('measurev2_getactivity', 'activities'),
  workout: first('measurev2_getworkouts', 'series'),
  sleep: first('sleepv2_getsummary', 'series'),
}));

export type WithingsUser = { seed: string; userid: number; timezone: string; offsetMinutes: number };

const DAY_S = 86_400;
const round = (value: number, digits = 0) => Number(value.toFixed(digits));
export const isoDay = (day: number) => new Date(day * DAY_S * 1000).toISOString().slice(0, 10);
/** Unix seconds of local `hour` (fractional) on `day`. */
const at = (user: WithingsUser, day: number, hour: number) =>
  Math.round(day * DAY_S + hour * 3600 - user.offsetMinutes * 60);
const deviceId = (user: WithingsUser, kind: string) =>
  createHash('sha1').update(`${user.seed}|${kind}`).digest('hex');

/** Measure types and their decimal exponents, as Withings reports them. */
const measure = (type: number, value: number, unit: number) => ({
  value: Math.round(value * 10 ** -unit),
  type,
  unit,
  algo: 0,
  position: 0,
});

export function measureGroupsOf(user: WithingsUser, day: number): Json[] {
  const random = seeded(`${user.seed}|measure|${day}`);
  const groups: Json[] = [];
  const group = (index: number, hour: number, model: string, modelId: number, measures: Json[]) => {
    const date = at(user, day, hour);
    groups.push({
      ...templates.group,
      grpid: day * 10 + index,
      attrib: 0,
      date,
      created: date + 40,
      modified: date + 60,
      category: 1,
      deviceid: deviceId(user, model),
      hash_deviceid: deviceId(user, model),
      model,
      model_id: modelId,
      comment: undefined,
      measures,
    });
  };
  const weight = 60 + (day % 17) * 0.3 + random.between(0, 8);
  const fat = random.between(14, 28);
  group(0, 7 + random.between(0, 1.5), 'Body Comp', 18, [
    measure(1, weight, -3),
    measure(6, fat, -3),
    measure(8, (weight * fat) / 100, -3),
    measure(5, weight * (1 - fat / 100), -3),
    measure(76, weight * 0.74, -3),
    measure(77, weight * 0.55, -3),
    measure(88, weight * 0.04, -3),
    measure(11, random.int(55, 75), 0),
  ]);
  if (day % 2 === 0) {
    group(1, 20 + random.between(0, 2), 'BPM Connect', 45, [
      measure(10, random.int(110, 135), 0),
      measure(9, random.int(68, 88), 0),
      measure(11, random.int(58, 80), 0),
    ]);
  }
  if (day % 3 === 0) group(2, 8.5, 'Thermo', 70, [measure(71, random.between(36.3, 37.2), -2)]);
  return groups.map((value) => JSON.parse(JSON.stringify(value)) as Json);
}

export function activityOf(user: WithingsUser, day: number): Json {
  const random = seeded(`${user.seed}|activity|${day}`);
  const soft = random.int(1200, 5000);
  const moderate = random.int(300, 2400);
  const intense = random.int(0, 1500);
  const calories = round(random.between(250, 900), 2);
  return {
    ...templates.activity,
    date: isoDay(day),
    timezone: user.timezone,
    deviceid: deviceId(user, 'ScanWatch'),
    hash_deviceid: deviceId(user, 'ScanWatch'),
    brand: 1,
    is_tracker: true,
    modified: at(user, day, 23.9),
    model: 'ScanWatch',
    modelid: 93,
    steps: random.int(2000, 16_000),
    distance: round(random.between(1500, 12_000), 2),
    elevation: random.int(0, 30),
    soft,
    moderate,
    intense,
    active: moderate + intense,
    calories,
    totalcalories: round(calories + random.between(1400, 1900), 2),
    hr_average: random.int(62, 82),
    hr_min: random.int(45, 58),
    hr_max: random.int(120, 175),
    hr_zone_0: random.int(20_000, 40_000),
    hr_zone_1: random.int(1000, 8000),
    hr_zone_2: random.int(0, 2000),
    hr_zone_3: random.int(0, 600),
  };
}

/** Per-minute intraday points of one day: steps/calories/distance while walking, heart rate every 10 min. */
export function intradayOf(user: WithingsUser, day: number): Map<number, Json> {
  const random = seeded(`${user.seed}|intraday|${day}`);
  const points = new Map<number, Json>();
  for (let minute = 0; minute < 1440; minute++) {
    const start = at(user, day, minute / 60);
    const walking = minute > 7 * 60 && minute < 22 * 60 && random.next() < 0.2;
    const point: Json = {};
    if (walking) {
      const steps = random.int(20, 120);
      Object.assign(point, {
        steps,
        calories: round(steps * 0.04, 2),
        distance: round(steps * 0.75, 2),
        elevation: random.next() < 0.05 ? 1 : 0,
        duration: 60,
      });
    }
    if (minute % 10 === 0) point.heart_rate = random.int(52, 110);
    if (minute % 60 === 30 && (minute < 6 * 60 || minute > 23 * 60)) point.spo2_auto = random.int(93, 99);
    if (Object.keys(point).length)
      points.set(start, {
        deviceid: deviceId(user, 'ScanWatch'),
        model: 'ScanWatch',
        model_id: 93,
        ...point,
      });
  }
  return points;
}

const CATEGORIES = [1, 2, 6, 16, 28, 307] as const;

export function workoutsOf(user: WithingsUser, day: number): Json[] {
  const random = seeded(`${user.seed}|workout|${day}`);
  if (random.next() < 0.4) return [];
  const start = at(user, day, 17 + random.between(0, 2));
  const seconds = random.int(20, 80) * 60;
  const category = random.pick(CATEGORIES);
  const moves = category === 1 || category === 2 || category === 6;
  return [
    {
      ...templates.workout,
      id: day * 10,
      category,
      timezone: user.timezone,
      model: 93,
      attrib: 0,
      startdate: start,
      enddate: start + seconds,
      date: isoDay(day),
      modified: start + seconds + 300,
      deviceid: deviceId(user, 'ScanWatch'),
      data: {
        calories: random.int(80, 700),
        distance: moves ? random.int(1000, 15_000) : 0,
        steps: moves ? random.int(1000, 12_000) : 0,
        elevation: random.int(0, 10),
        hr_average: random.int(100, 160),
        hr_min: random.int(70, 100),
        hr_max: random.int(160, 190),
        hr_zone_0: random.int(0, 300),
        hr_zone_1: random.int(0, 900),
        hr_zone_2: random.int(0, 900),
        hr_zone_3: random.int(0, 300),
        intensity: 0,
        pause_duration: 0,
        spo2_average: random.int(94, 99),
      },
    },
  ];
}

/** The night ending on the morning of `day`: its summary and its state segments. */
export function nightOf(user: WithingsUser, day: number): { summary: Json; segments: Json[] } {
  const random = seeded(`${user.seed}|sleep|${day}`);
  const start = at(user, day, -random.between(0.5, 2));
  const end = at(user, day, 6 + random.between(0, 2));
  const segments: Json[] = [];
  const seconds: Record<number, number> = { 0: 0, 1: 0, 2: 0, 3: 0 };
  let wakeups = 0;
  for (let from = start; from < end;) {
    const state = from === start ? 0 : random.pick([1, 1, 2, 3, 0]);
    const to = Math.min(end, from + random.int(5, 45) * 60);
    if (state === 0 && from !== start) wakeups++;
    seconds[state] = (seconds[state] ?? 0) + (to - from);
    const hr: Record<string, number> = {};
    const rr: Record<string, number> = {};
    const rmssd: Record<string, number> = {};
    for (let t = from; t < to; t += 600) {
      hr[t] = random.int(46, 66);
      rr[t] = random.int(11, 17);
      rmssd[t] = random.int(20, 80);
    }
    segments.push({
      startdate: from,
      enddate: to,
      state,
      model: 'ScanWatch',
      model_id: 93,
      hr,
      rr,
      rmssd,
      snoring: {},
      sdnn_1: {},
    });
    from = to;
  }
  const asleep = (seconds[1] ?? 0) + (seconds[2] ?? 0) + (seconds[3] ?? 0);
  const summary = {
    ...templates.sleep,
    id: day * 10 + 1,
    timezone: user.timezone,
    model: 16,
    model_id: 93,
    startdate: start,
    enddate: end,
    date: isoDay(day),
    created: end + 600,
    modified: end + 600,
    hash_deviceid: deviceId(user, 'ScanWatch'),
    completed: true,
    data: {
      total_timeinbed: end - start,
      total_sleep_time: asleep,
      lightsleepduration: seconds[1],
      deepsleepduration: seconds[2],
      remsleepduration: seconds[3],
      wakeupduration: seconds[0],
      wakeupcount: wakeups,
      sleep_efficiency: round(asleep / (end - start), 2),
      sleep_latency: (segments[0]?.enddate as number) - start,
      wakeup_latency: random.int(0, 900),
      nb_rem_episodes: segments.filter((segment) => segment.state === 3).length,
      out_of_bed_count: 0,
      hr_average: random.int(50, 60),
      hr_min: random.int(42, 50),
      hr_max: random.int(70, 90),
      rr_average: random.int(12, 16),
      rr_min: random.int(9, 12),
      rr_max: random.int(16, 20),
      sleep_score: random.int(50, 95),
      snoring: random.int(0, 1200),
      snoringepisodecount: random.int(0, 6),
      rmssd_start_avg: random.int(30, 60),
      rmssd_end_avg: random.int(30, 60),
    },
  };
  return { summary, segments };
}

/** An ECG every fifth day; its signal id encodes the day. */
export function heartOf(user: WithingsUser, day: number): Json[] {
  if (day % 5 !== 0) return [];
  const random = seeded(`${user.seed}|heart|${day}`);
  const timestamp = at(user, day, 12 + random.between(0, 6));
  return [
    {
      deviceid: deviceId(user, 'ScanWatch'),
      model: 93,
      ecg: { signalid: day * 10 + 1, afib: random.pick([0, 0, 0, 2]) },
      heart_rate: random.int(60, 90),
      modified: timestamp + 30,
      timestamp,
    },
  ];
}

export function signalOf(user: WithingsUser, signalId: number): Json | null {
  const day = Math.floor(signalId / 10);
  if (signalId % 10 !== 1 || day % 5 !== 0) return null;
  const random = seeded(`${user.seed}|signal|${day}`);
  const frequency = 500;
  const signal = Array.from({ length: frequency * 10 }, (_, index) => {
    const phase = (index % frequency) / frequency;
    return Math.round(
      (phase < 0.04 ? 900 * Math.sin(phase * Math.PI * 25) : 40 * Math.sin(phase * 12)) +
        random.between(-15, 15),
    );
  });
  return {
    signal,
    sampling_frequency: frequency,
    wearposition: 1,
    model: 93,
    heart_rate: heartOf(user, day)[0]?.heart_rate,
  };
}

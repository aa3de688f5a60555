// From a user's stored mobile samples to unified records. Pure functions over MobileSample lists:
// the service loads the samples of a local day and stores what comes out.
//
// Duplicate sources (docs/mobile.md#duplicate-sources): an iPhone and an Apple Watch (or two
// Android apps) record the same steps. Per local day and per metric the merge engine chooses
// (source-choice.ts): sources ranked by device kind, then completeness; cumulative metrics
// (steps, distance, energy, floors) from the best source, the time it leaves uncovered from the
// next ones, so no stretch of time counts twice and phone steps still count while the watch was
// off; discrete metrics (heart rate, HRV, SpO2, …) from the best source alone. The chosen source
// is recorded in `device_data` (`name`, `data_provided`), gap-fillers in
// `device_data.other_devices`.
import type { Activity, Body, Daily, Menstruation, Nutrition, Sleep } from '../../model/index.ts';
import { SleepLevel, UploadType, SleepUploadType } from '../../model/enums.ts';
import { formatDateTime, localIsoDate, MS_PER_DAY } from '../../model/time.ts';
import type { MobileKind, MobileSample } from '../../provider-kit/mobile/samples.ts';
import { dayBoundsOf, localizationOf } from '../../provider-kit/normalize/normalize.ts';
import { chooseCumulative, chooseDiscrete, rankSources, type Selection } from './source-choice.ts';

const SLEEP_DAY_SHIFT_MS = 6 * 3_600_000;
/** A gap longer than this between sleep samples of one source starts a new session. */
const SLEEP_SESSION_GAP_MS = 60 * 60_000;

/**
 * The local day a sample is stored under. Sleep belongs to the night it ends: samples are shifted
 * 6 hours forward, so a night from 22:00 to 07:00 and a nap at 14:00 land on the day they end.
 */
export function localDayOf(sample: MobileSample): string {
  if (sample.day) return sample.day;
  const shift = sample.kind === 'sleep' ? SLEEP_DAY_SHIFT_MS : 0;
  return localIsoDate(sample.startMs + shift, sample.offsetMinutes);
}

const sum = (samples: readonly MobileSample[]) =>
  samples.reduce((total, sample) => total + (sample.value ?? 0), 0);

function stats(values: readonly number[]) {
  if (values.length === 0) return { avg: null, min: null, max: null };
  let total = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const value of values) {
    total += value;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  return { avg: total / values.length, min, max };
}

const round = (value: number | null, digits = 2) =>
  value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits;

function byKind(samples: readonly MobileSample[]): Map<MobileKind, MobileSample[]> {
  const map = new Map<MobileKind, MobileSample[]>();
  for (const sample of samples) {
    const list = map.get(sample.kind);
    if (list) list.push(sample);
    else map.set(sample.kind, [sample]);
  }
  return map;
}

/** The offset a day is written in: that of most of its samples. */
function offsetOfDay(samples: readonly MobileSample[]): number {
  const counts = new Map<number, number>();
  for (const sample of samples)
    if (!sample.day) counts.set(sample.offsetMinutes, (counts.get(sample.offsetMinutes) ?? 0) + 1);
  let best = 0;
  let bestCount = -1;
  for (const [offset, count] of counts) if (count > bestCount) [best, bestCount] = [offset, count];
  return best;
}

const DEVICE_DATA_TYPE: Partial<Record<MobileKind, string>> = {
  steps: 'STEPS',
  distance: 'DISTANCE',
  active_energy: 'CALORIES',
  basal_energy: 'BMR',
  heart_rate: 'HEART_RATE',
  oxygen_saturation: 'OXYGEN_SATURATION',
  sleep: 'SLEEP_TYPE',
};

/** `device_data` naming the source chosen first for each metric, and the others that filled gaps. */
function deviceData(choices: Map<MobileKind, Selection>, samples: readonly MobileSample[]) {
  const provided = new Map<string, Set<string>>();
  const order: string[] = [];
  for (const [kind, selection] of choices) {
    selection.sources.forEach((name) => {
      if (!provided.has(name)) {
        provided.set(name, new Set());
        order.push(name);
      }
      const type = DEVICE_DATA_TYPE[kind];
      if (type) provided.get(name)!.add(type);
    });
  }
  if (order.length === 0) return null;
  const describe = (name: string) => {
    const source = samples.find((sample) => sample.source.name === name)?.source;
    return {
      name,
      manufacturer: source?.manufacturer ?? null,
      hardware_version: source?.model ?? null,
      data_provided: [...(provided.get(name) ?? [])] as never[],
    };
  };
  const [primary, ...others] = order;
  return { ...describe(primary!), other_devices: others.map(describe) };
}

export type DayRecords = {
  daily: Daily | null;
  body: Body | null;
  nutrition: Nutrition | null;
  menstruation: Menstruation | null;
};

const CUMULATIVE: readonly MobileKind[] = ['steps', 'distance', 'active_energy', 'basal_energy', 'floors'];
const DISCRETE: readonly MobileKind[] = [
  'heart_rate',
  'resting_heart_rate',
  'hrv_sdnn',
  'hrv_rmssd',
  'oxygen_saturation',
  'vo2max',
];

/** The day records (daily, body, nutrition, menstruation) of one local day. */
export function buildDayRecords(day: string, samples: readonly MobileSample[]): DayRecords {
  const onDay = samples.filter((sample) => sample.kind !== 'sleep' && sample.kind !== 'workout');
  const offset = offsetOfDay(onDay);
  const bounds = dayBoundsOf(day, offset);
  const localization = localizationOf(offset);
  const at = (ms: number) => formatDateTime(ms, offset);
  const kinds = byKind(onDay);
  return {
    daily: buildDaily(kinds, onDay, { bounds, localization, at }),
    body: buildBody(kinds, { bounds, localization, at }),
    nutrition: buildNutrition(kinds, { bounds, localization }),
    menstruation: buildMenstruation(kinds, { bounds, localization, at }),
  };
}

type DayFrame = {
  bounds: { start_time: string; end_time: string };
  localization: 0 | 1;
  at: (ms: number) => string;
};

function buildDaily(
  kinds: Map<MobileKind, MobileSample[]>,
  samples: readonly MobileSample[],
  frame: DayFrame,
): Daily | null {
  const choices = new Map<MobileKind, Selection>();
  for (const kind of CUMULATIVE) {
    const list = kinds.get(kind);
    if (list) choices.set(kind, chooseCumulative(list));
  }
  for (const kind of DISCRETE) {
    const list = kinds.get(kind);
    if (list) choices.set(kind, chooseDiscrete(list, 'heart_rate'));
  }
  const summary = kinds.get('activity_summary')?.[0]?.parts;
  if (choices.size === 0 && !summary) return null;
  const chosen = (kind: MobileKind) => choices.get(kind)?.samples ?? null;
  const total = (kind: MobileKind) => {
    const list = chosen(kind);
    return list ? round(sum(list)) : null;
  };
  const duration = (sample: MobileSample) => (sample.endMs - sample.startMs) / 1000;
  const steps = chosen('steps');
  const hr = chosen('heart_rate');
  const hrStats = stats((hr ?? []).map((sample) => sample.value ?? 0));
  const resting = chosen('resting_heart_rate');
  const sdnn = chosen('hrv_sdnn');
  const rmssd = chosen('hrv_rmssd');
  const spo2 = chosen('oxygen_saturation');
  const vo2 = chosen('vo2max');
  const active = total('active_energy') ?? round(summary?.active_energy_kcal ?? null);
  const basal = total('basal_energy');
  const mean = (list: MobileSample[] | null) =>
    round(stats((list ?? []).map((sample) => sample.value ?? 0)).avg);
  let cumulativeDistance = 0;
  return {
    metadata: {
      ...frame.bounds,
      upload_type: UploadType.AUTOMATIC,
      timestamp_localization: frame.localization,
    },
    distance_data: {
      steps: total('steps'),
      distance_meters: total('distance'),
      floors_climbed: total('floors'),
      detailed: {
        step_samples: (steps ?? []).map((sample) => ({
          timestamp: frame.at(sample.startMs),
          steps: sample.value,
          timer_duration_seconds: duration(sample),
        })),
        distance_samples: (chosen('distance') ?? []).map((sample) => {
          cumulativeDistance += sample.value ?? 0;
          return {
            timestamp: frame.at(sample.endMs),
            distance_meters: round(cumulativeDistance),
            timer_duration_seconds: null,
          };
        }),
      },
    },
    calories_data: {
      net_activity_calories: active,
      BMR_calories: basal,
      total_burned_calories: active === null && basal === null ? null : round((active ?? 0) + (basal ?? 0)),
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: round(hrStats.avg),
        min_hr_bpm: hrStats.min,
        max_hr_bpm: hrStats.max,
        resting_hr_bpm: mean(resting),
        avg_hrv_sdnn: mean(sdnn),
        avg_hrv_rmssd: mean(rmssd),
      },
      detailed: {
        hr_samples: (hr ?? []).map((sample) => ({ timestamp: frame.at(sample.startMs), bpm: sample.value })),
        hrv_samples_sdnn: (sdnn ?? []).map((sample) => ({
          timestamp: frame.at(sample.startMs),
          hrv_sdnn: sample.value,
        })),
        hrv_samples_rmssd: (rmssd ?? []).map((sample) => ({
          timestamp: frame.at(sample.startMs),
          hrv_rmssd: sample.value,
        })),
      },
    },
    oxygen_data: {
      avg_saturation_percentage: mean(spo2),
      saturation_samples: (spo2 ?? []).map((sample) => ({
        timestamp: frame.at(sample.startMs),
        percentage: sample.value,
      })),
      vo2max_ml_per_min_per_kg: vo2 ? (vo2.at(-1)!.value ?? null) : null,
    },
    active_durations_data: summary
      ? {
          activity_seconds: summary.exercise_minutes === undefined ? null : summary.exercise_minutes * 60,
          standing_hours_count: summary.stand_hours ?? null,
        }
      : null,
    device_data: deviceData(choices, samples),
  };
}

/** Identical readings written by two sources (an app mirroring a scale) count once. */
function unique(samples: readonly MobileSample[] | undefined): MobileSample[] {
  const seen = new Set<string>();
  const out: MobileSample[] = [];
  for (const sample of [...(samples ?? [])].sort((a, b) => a.startMs - b.startMs)) {
    const key = `${sample.startMs}|${sample.value}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(sample);
  }
  return out;
}

const MEASUREMENT_FIELDS: [MobileKind, string][] = [
  ['weight', 'weight_kg'],
  ['body_fat', 'bodyfat_percentage'],
  ['height', 'height_cm'],
  ['bmi', 'BMI'],
  ['lean_mass', 'lean_mass_g'],
];

function buildBody(kinds: Map<MobileKind, MobileSample[]>, frame: DayFrame): Body | null {
  const measurements = new Map<number, Record<string, number | string | null>>();
  for (const [kind, field] of MEASUREMENT_FIELDS) {
    for (const sample of unique(kinds.get(kind))) {
      const entry = measurements.get(sample.startMs) ?? { measurement_time: frame.at(sample.startMs) };
      entry[field] = kind === 'lean_mass' && sample.value !== null ? sample.value * 1000 : sample.value;
      measurements.set(sample.startMs, entry);
    }
  }
  const systolic = unique(kinds.get('bp_systolic'));
  const diastolic = unique(kinds.get('bp_diastolic'));
  const pressures = systolic.map((sample) => ({
    timestamp: frame.at(sample.startMs),
    systolic_bp: sample.value,
    diastolic_bp: diastolic.find((other) => other.startMs === sample.startMs)?.value ?? null,
  }));
  const glucose = unique(kinds.get('glucose'));
  const temperature = unique(kinds.get('body_temperature'));
  if (measurements.size === 0 && pressures.length === 0 && glucose.length === 0 && temperature.length === 0)
    return null;
  const list = [...measurements.entries()].sort((a, b) => a[0] - b[0]).map(([, entry]) => entry);
  const dayAverage = (field: string) =>
    round(stats(list.flatMap((entry) => (typeof entry[field] === 'number' ? [entry[field]] : []))).avg);
  return {
    metadata: { ...frame.bounds, timestamp_localization: frame.localization },
    measurements_data:
      list.length > 0
        ? {
            measurements: list,
            day_avg_weight_kg: dayAverage('weight_kg'),
            day_avg_bodyfat_percentage: dayAverage('bodyfat_percentage'),
            day_avg_height_cm: dayAverage('height_cm'),
            day_avg_bmi: dayAverage('BMI'),
          }
        : null,
    blood_pressure_data:
      pressures.length > 0
        ? {
            blood_pressure_samples: pressures,
            day_avg_systolic_bp: round(stats(systolic.map((s) => s.value ?? 0)).avg),
            day_avg_diastolic_bp:
              diastolic.length > 0 ? round(stats(diastolic.map((s) => s.value ?? 0)).avg) : null,
          }
        : null,
    glucose_data:
      glucose.length > 0
        ? {
            blood_glucose_samples: glucose.map((sample) => ({
              timestamp: frame.at(sample.startMs),
              blood_glucose_mg_per_dL: round(sample.value),
            })),
            day_avg_blood_glucose_mg_per_dL: round(stats(glucose.map((s) => s.value ?? 0)).avg),
          }
        : null,
    temperature_data:
      temperature.length > 0
        ? {
            body_temperature_samples: temperature.map((sample) => ({
              timestamp: frame.at(sample.startMs),
              temperature_celsius: round(sample.value),
            })),
          }
        : null,
  } as Body;
}

const MICRO_PARTS = new Set(['caffeine_mg']);

function buildNutrition(
  kinds: Map<MobileKind, MobileSample[]>,
  frame: Omit<DayFrame, 'at'>,
): Nutrition | null {
  const food = kinds.get('nutrition') ?? [];
  const water = unique(kinds.get('water'));
  if (food.length === 0 && water.length === 0) return null;
  const macros: Record<string, number> = {};
  const micros: Record<string, number> = {};
  const seen = new Set<string>();
  for (const sample of food) {
    const key = `${sample.startMs}|${sample.endMs}|${JSON.stringify(sample.parts)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    for (const [part, value] of Object.entries(sample.parts ?? {})) {
      const target = MICRO_PARTS.has(part) ? micros : macros;
      target[part] = round((target[part] ?? 0) + value)!;
    }
  }
  return {
    metadata: { ...frame.bounds, timestamp_localization: frame.localization },
    summary: {
      macros: Object.keys(macros).length > 0 ? macros : null,
      micros: Object.keys(micros).length > 0 ? micros : null,
      water_ml: water.length > 0 ? round(sum(water)) : null,
    },
  };
}

function buildMenstruation(kinds: Map<MobileKind, MobileSample[]>, frame: DayFrame): Menstruation | null {
  const flows = unique(kinds.get('menstrual_flow'));
  if (flows.length === 0) return null;
  return {
    metadata: { ...frame.bounds, timestamp_localization: frame.localization },
    menstruation_data: {
      menstruation_flow: flows.map((sample) => ({
        timestamp: frame.at(sample.startMs),
        flow: sample.level ?? 0,
      })) as never,
    },
  };
}

/** Identity of the n-th sleep session of a sleep day (sessions are rebuilt whole, in order). */
export const SLEEP_KEY_PREFIX = 'mobile-sleep:';
export const sleepKey = (day: string, index: number) => `${SLEEP_KEY_PREFIX}${day}:${index}`;

/** The sleep sessions of one sleep day, from the best source's stage samples. */
export function buildSleeps(day: string, samples: readonly MobileSample[]): Sleep[] {
  const all = samples.filter((sample) => sample.kind === 'sleep');
  // Stage samples (Apple Watch, Health Connect stages) outrank plain "in bed" samples.
  const groups = rankSources(all, 'sleep');
  const best = groups.find((group) => group.samples.some((s) => s.level !== SleepLevel.UNKNOWN)) ?? groups[0];
  if (!best) return [];
  const sorted = [...best.samples].sort((a, b) => a.startMs - b.startMs);
  const sessions: MobileSample[][] = [];
  let end = -Infinity;
  for (const sample of sorted) {
    if (sample.startMs - end > SLEEP_SESSION_GAP_MS) sessions.push([]);
    sessions.at(-1)!.push(sample);
    end = Math.max(end, sample.endMs);
  }
  return sessions.map((session, index) => {
    const offset = session[0]!.offsetMinutes;
    const at = (ms: number) => formatDateTime(ms, offset);
    const start = session[0]!.startMs;
    const finish = Math.max(...session.map((s) => s.endMs));
    const stages = session.filter((s) => s.level !== SleepLevel.UNKNOWN);
    const seconds = (levels: number[]) =>
      stages
        .filter((s) => levels.includes(s.level ?? -1))
        .reduce((t, s) => t + (s.endMs - s.startMs) / 1000, 0);
    const asleep = seconds([SleepLevel.SLEEPING, SleepLevel.LIGHT, SleepLevel.DEEP, SleepLevel.REM]);
    const inBed = (finish - start) / 1000;
    return {
      metadata: {
        start_time: at(start),
        end_time: at(finish),
        upload_type: SleepUploadType.AUTOMATIC,
        is_nap:
          inBed < 3 * 3600 &&
          localIsoDate(start, offset) === day &&
          new Date(start + offset * 60_000).getUTCHours() >= 10,
        summary_id: sleepKey(day, index),
        timestamp_localization: localizationOf(offset),
      },
      sleep_durations_data: {
        asleep: {
          duration_asleep_state_seconds: asleep,
          duration_light_sleep_state_seconds: seconds([SleepLevel.LIGHT]),
          duration_deep_sleep_state_seconds: seconds([SleepLevel.DEEP]),
          duration_REM_sleep_state_seconds: seconds([SleepLevel.REM]),
        },
        awake: { duration_awake_state_seconds: seconds([SleepLevel.AWAKE]) },
        other: { duration_in_bed_seconds: inBed },
        hypnogram_samples: stages.map((s) => ({ timestamp: at(s.startMs), level: s.level ?? 0 })) as never,
        sleep_efficiency: inBed > 0 ? round((asleep / inBed) * 100) : null,
      },
      device_data: { name: best.name, data_provided: ['SLEEP_TYPE'] },
    } as Sleep;
  });
}

/**
 * One activity per workout, with the heart-rate and distance samples recorded during it (from
 * the best source, as for the day) and its route.
 */
export function buildActivity(workout: MobileSample, around: readonly MobileSample[]): Activity {
  const details = workout.workout!;
  const offset = workout.offsetMinutes;
  const at = (ms: number) => formatDateTime(ms, offset);
  const inside = (sample: MobileSample) =>
    sample.startMs >= workout.startMs && sample.startMs <= workout.endMs;
  const hr = chooseDiscrete(
    around.filter((s) => s.kind === 'heart_rate' && inside(s)),
    'heart_rate',
  ).samples;
  const distance = chooseCumulative(around.filter((s) => s.kind === 'distance' && inside(s))).samples;
  const hrStats = stats(hr.map((s) => s.value ?? 0));
  let cumulative = 0;
  const route = details.route;
  const first = route[0];
  const last = route.at(-1);
  return {
    metadata: {
      summary_id: workout.id,
      start_time: at(workout.startMs),
      end_time: at(workout.endMs),
      type: details.type as never,
      upload_type: UploadType.AUTOMATIC,
      name: details.name,
      timestamp_localization: localizationOf(offset),
    },
    active_durations_data: { activity_seconds: details.durationSeconds },
    calories_data: { net_activity_calories: round(details.energyKcal) },
    distance_data: {
      summary: {
        distance_meters: round(details.distanceMeters ?? (distance.length > 0 ? sum(distance) : null)),
      },
      detailed: {
        distance_samples: distance.map((s) => {
          cumulative += s.value ?? 0;
          return { timestamp: at(s.endMs), distance_meters: round(cumulative) };
        }),
      },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: round(details.avgHr ?? hrStats.avg),
        min_hr_bpm: details.minHr ?? hrStats.min,
        max_hr_bpm: details.maxHr ?? hrStats.max,
      },
      detailed: { hr_samples: hr.map((s) => ({ timestamp: at(s.startMs), bpm: s.value })) },
    },
    position_data:
      first && last
        ? {
            start_pos_lat_lng_deg: [first.lat, first.lng],
            end_pos_lat_lng_deg: [last.lat, last.lng],
            position_samples: route.map((point) => ({
              timestamp: at(point.t),
              coords_lat_lng_deg: [point.lat, point.lng],
            })),
          }
        : null,
    device_data: { name: workout.source.name, hardware_version: workout.source.model },
  } as Activity;
}

/** The days whose records a sample on `day` can change (a workout's samples may cross midnight). */
export function neighbourDays(day: string): [string, string] {
  const ms = Date.parse(`${day}T00:00:00Z`);
  return [
    new Date(ms - MS_PER_DAY).toISOString().slice(0, 10),
    new Date(ms + MS_PER_DAY).toISOString().slice(0, 10),
  ];
}

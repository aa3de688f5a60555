// A day's `daily` record: cumulative metrics merged across sources, discrete ones from the best source.
import type { Daily } from '../../../model/index.ts';
import { UploadType } from '../../../model/enums.ts';
import type { MobileKind, MobileSample } from '../../../provider-kit/mobile/samples.ts';
import { chooseCumulative, chooseDiscrete, type Selection } from '../source-choice.ts';
import { round, stats, sum, type DayFrame } from './shared.ts';

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

export const CUMULATIVE: readonly MobileKind[] = [
  'steps',
  'distance',
  'active_energy',
  'basal_energy',
  'floors',
];
export const DISCRETE: readonly MobileKind[] = [
  'heart_rate',
  'resting_heart_rate',
  'hrv_sdnn',
  'hrv_rmssd',
  'oxygen_saturation',
  'vo2max',
];

export function buildDaily(
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

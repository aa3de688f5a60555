// A day's `body`, `nutrition` and `menstruation` records: readings and logs, each kept once.
import type { Body, Menstruation, Nutrition } from '../../../model/index.ts';
import type { MobileKind, MobileSample } from '../../../provider-kit/mobile/samples.ts';
import { round, stats, sum, type DayFrame } from './shared.ts';

/** Identical readings written by two sources (an app mirroring a scale) count once. */
export function unique(samples: readonly MobileSample[] | undefined): MobileSample[] {
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

export const MEASUREMENT_FIELDS: [MobileKind, string][] = [
  ['weight', 'weight_kg'],
  ['body_fat', 'bodyfat_percentage'],
  ['height', 'height_cm'],
  ['bmi', 'BMI'],
  ['lean_mass', 'lean_mass_g'],
];

export function buildBody(kinds: Map<MobileKind, MobileSample[]>, frame: DayFrame): Body | null {
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

export const MICRO_PARTS = new Set(['caffeine_mg']);

export function buildNutrition(
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

export function buildMenstruation(
  kinds: Map<MobileKind, MobileSample[]>,
  frame: DayFrame,
): Menstruation | null {
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

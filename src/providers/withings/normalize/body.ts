// Withings measure getmeas (+ heart list and ECG signals) -> Body, one record per local day.
//
// Cannot map: meastypes 8 fat mass (no field; fat ratio and fat-free mass are mapped),
// 135-138 QRS/PR/QT/QTc intervals, 155 vascular age, 167/196/229 nerve-health and skin
// conductance scores, 168/169 extra/intracellular water, 173-175 segmental masses, 227 metabolic
// age (not a fitness age); group `attrib` (ambiguous/manual attribution has no flag), `position`;
// category 2 groups are the user's goals, not measurements, and are skipped. Fat-free mass is the
// model's lean mass; 12 "temperature" and 71 body temperature are both body temperature; 77
// hydration (total body water, kg) also gives water_percentage when the group has a weight.
// Each group is placed on its local day in its zone (the group's `timezone`, else the body's,
// else the user's offset). Heart-list entries carry no zone and use the measure zone when known.
import type { Body } from '../../../model/body.ts';
import { HeartRateContext, OxygenSaturationType } from '../../../model/enums.ts';
import { formatDateTime, localIsoDate } from '../../../model/time.ts';
import { dayBoundsOf, type NormalizeContext, statsOf } from '../../../provider-kit/normalize/normalize.ts';
import { afibFlag, MeasureType as M, measuresByType, scaledValue } from './measures.ts';
import { midnightOffset, offsetIn } from './timezone.ts';
import {
  type Pages,
  pagesOf,
  type WithingsGetmeasBody,
  type WithingsHeartListBody,
  type WithingsHeartSignalBody,
} from './types.ts';

export type WithingsBodyPayload = {
  measure: Pages<WithingsGetmeasBody>;
  heart?: Pages<WithingsHeartListBody>;
  /** ECG traces from `v2/heart?action=get`, keyed by `signalid`. */
  heart_signal?: Readonly<Record<string, WithingsHeartSignalBody>>;
};

type Data<K extends keyof Body> = NonNullable<Body[K]>;
type Samples<T> = NonNullable<T>;
type Measurement = Samples<Data<'measurements_data'>['measurements']>[number];
type HeartData = Data<'heart_data'>;

type Day = {
  date: string;
  zone: string | null;
  measurements: Measurement[];
  bp: Samples<Data<'blood_pressure_data'>['blood_pressure_samples']>;
  hr: { timestamp: string; bpm: number; context: 0 }[];
  bodyTemperature: Samples<Data<'temperature_data'>['body_temperature_samples']>;
  skinTemperature: Samples<Data<'temperature_data'>['skin_temperature_samples']>;
  spo2: { timestamp: string; percentage: number; type: 0 }[];
  pwv: Samples<HeartData['pulse_wave_velocity_samples']>;
  afib: Samples<HeartData['afib_classification_samples']>;
  ecg: Samples<HeartData['ecg_signal']>;
  vo2: { timestamp: string; vo2max_ml_per_min_per_kg: number }[];
  hydration: { timestamp: string; hydration_kg: number }[];
  devices: string[];
};

function dayOf(days: Map<string, Day>, date: string, zone: string | null): Day {
  let day = days.get(date);
  if (!day) {
    day = {
      date,
      zone,
      measurements: [],
      bp: [],
      hr: [],
      bodyTemperature: [],
      skinTemperature: [],
      spo2: [],
      pwv: [],
      afib: [],
      ecg: [],
      vo2: [],
      hydration: [],
      devices: [],
    };
    days.set(date, day);
  }
  return day;
}

function average(values: readonly (number | null | undefined)[]): number | null {
  return statsOf(values.map((value) => (typeof value === 'number' ? value : null))).avg;
}

function addGroups(days: Map<string, Day>, body: WithingsGetmeasBody, fallback: number): void {
  for (const group of body.measuregrps) {
    if (group.category === 2) continue;
    const zone = group.timezone ?? body.timezone ?? null;
    const atMs = group.date * 1000;
    const offset = offsetIn(zone, atMs, fallback);
    const timestamp = formatDateTime(atMs, offset);
    const day = dayOf(days, localIsoDate(atMs, offset), zone);
    const byType = measuresByType(group.measures);
    /** The real value of a type in the model's unit (`shift` decimal places), or null. */
    const value = (type: number, shift = 0): number | null => {
      const measure = byType.get(type);
      return measure ? scaledValue(measure, shift) : null;
    };
    if (group.model && !day.devices.includes(group.model)) day.devices.push(group.model);

    const weight = value(M.WEIGHT);
    const hydration = value(M.HYDRATION);
    const measurement: Measurement = {
      measurement_time: timestamp,
      weight_kg: weight,
      height_cm: value(M.HEIGHT, 2),
      lean_mass_g: value(M.FAT_FREE_MASS, 3),
      bodyfat_percentage: value(M.FAT_RATIO),
      muscle_mass_g: value(M.MUSCLE_MASS, 3),
      bone_mass_g: value(M.BONE_MASS, 3),
      water_percentage: hydration !== null && weight ? (hydration / weight) * 100 : null,
      visceral_fat_level: value(M.VISCERAL_FAT),
      BMR: value(M.BMR),
    };
    if (Object.entries(measurement).some(([key, field]) => key !== 'measurement_time' && field !== null)) {
      day.measurements.push(measurement);
    }
    const systolic = value(M.SYSTOLIC);
    const diastolic = value(M.DIASTOLIC);
    if (systolic !== null || diastolic !== null)
      day.bp.push({ timestamp, systolic_bp: systolic, diastolic_bp: diastolic });
    const pulse = value(M.HEART_PULSE);
    if (pulse !== null) day.hr.push({ timestamp, bpm: pulse, context: HeartRateContext.NOT_SET });
    for (const type of [M.TEMPERATURE, M.BODY_TEMPERATURE]) {
      const celsius = value(type);
      if (celsius !== null) day.bodyTemperature.push({ timestamp, temperature_celsius: celsius });
    }
    const skin = value(M.SKIN_TEMPERATURE);
    if (skin !== null) day.skinTemperature.push({ timestamp, temperature_celsius: skin });
    const spo2 = value(M.SPO2);
    if (spo2 !== null) day.spo2.push({ timestamp, percentage: spo2, type: OxygenSaturationType.BLOOD_SPO2 });
    const pwv = value(M.PULSE_WAVE_VELOCITY);
    if (pwv !== null) day.pwv.push({ timestamp, pulse_wave_velocity_meters_per_second: pwv });
    const vo2 = value(M.VO2MAX);
    if (vo2 !== null) day.vo2.push({ timestamp, vo2max_ml_per_min_per_kg: vo2 });
    if (hydration !== null) day.hydration.push({ timestamp, hydration_kg: hydration });
    for (const type of [M.AFIB_ECG, M.AFIB_PPG]) {
      const result = value(type);
      const flag = result === null ? null : afibFlag(result);
      if (flag !== null) day.afib.push({ timestamp, afib_classification: flag });
    }
  }
}

function addHeart(
  days: Map<string, Day>,
  body: WithingsHeartListBody,
  signals: Readonly<Record<string, WithingsHeartSignalBody>>,
  zone: string | null,
  fallback: number,
): void {
  for (const entry of body.series) {
    const atMs = entry.timestamp * 1000;
    const offset = offsetIn(zone, atMs, fallback);
    const timestamp = formatDateTime(atMs, offset);
    const day = dayOf(days, localIsoDate(atMs, offset), zone);
    const flag = typeof entry.ecg?.afib === 'number' ? afibFlag(entry.ecg.afib) : null;
    if (entry.ecg) {
      const signal = entry.ecg.signalid === undefined ? undefined : signals[String(entry.ecg.signalid)];
      const stepMs = signal && signal.sampling_frequency > 0 ? 1000 / signal.sampling_frequency : 0;
      day.ecg.push({
        start_timestamp: timestamp,
        avg_hr_bpm: entry.heart_rate ?? signal?.heart_rate ?? null,
        afib_classification: flag,
        raw_signal:
          signal && stepMs > 0
            ? signal.signal.map((potential_uV, index) => ({
                timestamp: formatDateTime(atMs + index * stepMs, offset),
                potential_uV,
              }))
            : [],
      });
      if (flag !== null) day.afib.push({ timestamp, afib_classification: flag });
    }
    const pressure = entry.bloodpressure;
    if (pressure && (pressure.systole !== undefined || pressure.diastole !== undefined)) {
      day.bp.push({
        timestamp,
        systolic_bp: pressure.systole ?? null,
        diastolic_bp: pressure.diastole ?? null,
      });
    }
    if (typeof entry.heart_rate === 'number')
      day.hr.push({ timestamp, bpm: entry.heart_rate, context: HeartRateContext.NOT_SET });
  }
}

/** Sorted by instant: samples of one day may be written in two offsets around a DST switch. */
const byTime = <T extends { timestamp?: string | null }>(items: T[]): T[] =>
  items.sort((left, right) => Date.parse(left.timestamp ?? '') - Date.parse(right.timestamp ?? ''));

function toBody(day: Day, fallback: number): Body {
  const offset = midnightOffset(day.zone, day.date, fallback);
  const hr = statsOf(day.hr.map((sample) => sample.bpm));
  const m = day.measurements;
  const hasHeart = day.hr.length + day.pwv.length + day.afib.length + day.ecg.length > 0;
  const last = day.vo2[day.vo2.length - 1];
  return {
    metadata: { ...dayBoundsOf(day.date, offset), timestamp_localization: offset === 0 ? 0 : 1 },
    measurements_data: m.length
      ? {
          measurements: m,
          day_avg_weight_kg: average(m.map((x) => x.weight_kg)),
          day_avg_height_cm: average(m.map((x) => x.height_cm)),
          day_avg_bodyfat_percentage: average(m.map((x) => x.bodyfat_percentage)),
          day_avg_lean_mass_g: average(m.map((x) => x.lean_mass_g)),
          day_avg_muscle_mass_g: average(m.map((x) => x.muscle_mass_g)),
          day_avg_bone_mass_g: average(m.map((x) => x.bone_mass_g)),
          day_avg_water_percentage: average(m.map((x) => x.water_percentage)),
          day_avg_visceral_fat_level: average(m.map((x) => x.visceral_fat_level)),
          day_avg_bmr: average(m.map((x) => x.BMR)),
        }
      : null,
    blood_pressure_data: day.bp.length
      ? {
          blood_pressure_samples: byTime(day.bp),
          day_avg_systolic_bp: average(day.bp.map((x) => x.systolic_bp)),
          day_avg_diastolic_bp: average(day.bp.map((x) => x.diastolic_bp)),
        }
      : null,
    heart_data: hasHeart
      ? {
          heart_rate_data: day.hr.length
            ? {
                summary: { avg_hr_bpm: hr.avg, min_hr_bpm: hr.min, max_hr_bpm: hr.max },
                detailed: { hr_samples: byTime(day.hr) },
              }
            : null,
          pulse_wave_velocity_samples: byTime(day.pwv),
          afib_classification_samples: byTime(day.afib),
          ecg_signal: day.ecg,
        }
      : null,
    temperature_data:
      day.bodyTemperature.length + day.skinTemperature.length > 0
        ? {
            body_temperature_samples: byTime(day.bodyTemperature),
            skin_temperature_samples: byTime(day.skinTemperature),
          }
        : null,
    oxygen_data:
      day.spo2.length + day.vo2.length > 0
        ? {
            avg_saturation_percentage: average(day.spo2.map((x) => x.percentage)),
            saturation_samples: byTime(day.spo2),
            vo2_samples: byTime(day.vo2),
            vo2max_ml_per_min_per_kg: last ? last.vo2max_ml_per_min_per_kg : null,
          }
        : null,
    hydration_data: day.hydration.length
      ? {
          hydration_amount_samples: byTime(day.hydration),
          day_avg_hydration_kg: average(day.hydration.map((x) => x.hydration_kg)),
        }
      : null,
    device_data: day.devices.length
      ? {
          name: day.devices[0] ?? null,
          manufacturer: 'Withings',
          other_devices: day.devices.slice(1).map((name) => ({ name, manufacturer: 'Withings' })),
        }
      : null,
  };
}

export function normalizeBody(payload: WithingsBodyPayload, context: NormalizeContext): Body[] {
  const fallback = context.userOffsetMinutes ?? 0;
  const days = new Map<string, Day>();
  const measurePages = pagesOf(payload.measure);
  for (const body of measurePages) addGroups(days, body, fallback);
  const zone = measurePages.find((body) => body.timezone)?.timezone ?? null;
  for (const body of pagesOf(payload.heart)) addHeart(days, body, payload.heart_signal ?? {}, zone, fallback);
  return [...days.values()]
    .sort((left, right) => (left.date < right.date ? -1 : 1))
    .map((day) => toBody(day, fallback));
}

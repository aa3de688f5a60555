// Per data type, which of a stored record's fields become which FHIR Observations (codes and units
// from codes.ts): one mapper per exported type, each writing through the Builder.
import { activityTypeName, MenstruationFlow, type DataTypeName } from '../../model/index.ts';
import type { CodeableConcept } from '../../model/fhir.ts';
import { conceptOf, METRICS, type Metric, quantityOf } from './codes.ts';
import type { ObservationComponent } from './resources.ts';
import {
  at,
  type Builder,
  type Effective,
  FHIR_DATE,
  fhirDateTime,
  type Json,
  list,
  type MapOptions,
  num,
  obj,
  str,
} from './observation-builder.ts';

/** The data types the export maps (planned workouts are plans, not observations). */
export const EXPORTED_TYPES = [
  'daily',
  'body',
  'sleep',
  'activity',
  'nutrition',
  'menstruation',
  'hormone',
] as const;
export type ExportedType = (typeof EXPORTED_TYPES)[number] & DataTypeName;

function periodOf(record: Json, start = 'start_time', end = 'end_time'): Effective | null {
  const from = fhirDateTime(str(at(record, 'metadata', start)));
  const to = fhirDateTime(str(at(record, 'metadata', end)));
  if (!from) return null;
  return { period: to ? { start: from, end: to } : { start: from } };
}

function instantOf(text: unknown): Effective | null {
  const when = fhirDateTime(str(text));
  return when ? { at: when } : null;
}

function heartSummary(b: Builder, prefix: string, heart: Json | null, effective: Effective | null) {
  const summary = obj(heart?.['summary']);
  if (!summary) return;
  b.quantity(`${prefix}.hr.resting`, METRICS.heart_rate_resting, effective, num(summary['resting_hr_bpm']));
  b.quantity(`${prefix}.hr.mean`, METRICS.heart_rate_mean, effective, num(summary['avg_hr_bpm']));
  b.quantity(`${prefix}.hr.min`, METRICS.heart_rate_min, effective, num(summary['min_hr_bpm']));
  b.quantity(`${prefix}.hr.max`, METRICS.heart_rate_max, effective, num(summary['max_hr_bpm']));
  b.quantity(`${prefix}.hrv.rmssd`, METRICS.hrv_rmssd, effective, num(summary['avg_hrv_rmssd']));
  b.quantity(`${prefix}.hrv.sdnn`, METRICS.hrv_sdnn, effective, num(summary['avg_hrv_sdnn']));
}

function heartSamples(b: Builder, prefix: string, heart: Json | null, options: MapOptions) {
  if (!options.withSamples) return;
  for (const sample of list(at(heart ?? {}, 'detailed', 'hr_samples'))) {
    const when = str(sample['timestamp']);
    b.quantity(`${prefix}.hr@${when}`, METRICS.heart_rate, instantOf(when), num(sample['bpm']));
  }
}

export const MAPPERS: Record<ExportedType, (b: Builder, record: Json, options: MapOptions) => void> = {
  daily(b, record, options) {
    const day = periodOf(record);
    const distance = obj(record['distance_data']);
    b.quantity('steps', METRICS.steps_day, day, num(distance?.['steps']));
    b.quantity('distance', METRICS.distance_day, day, num(distance?.['distance_meters']));
    b.quantity('floors', METRICS.floors_day, day, num(distance?.['floors_climbed']));
    const calories = obj(record['calories_data']);
    b.quantity('energy', METRICS.energy_day, day, num(calories?.['total_burned_calories']));
    b.quantity('energy.active', METRICS.active_energy, day, num(calories?.['net_activity_calories']));
    const heart = obj(record['heart_rate_data']);
    heartSummary(b, 'day', heart, day);
    heartSamples(b, 'day', heart, options);
    b.quantity('spo2', METRICS.spo2, day, num(at(record, 'oxygen_data', 'avg_saturation_percentage')));
  },

  body(b, record, options) {
    const day = periodOf(record);
    for (const sample of list(at(record, 'blood_pressure_data', 'blood_pressure_samples'))) {
      const when = str(sample['timestamp']);
      b.panel(`bp@${when}`, METRICS.blood_pressure, instantOf(when), [
        [METRICS.systolic, num(sample['systolic_bp'])],
        [METRICS.diastolic, num(sample['diastolic_bp'])],
      ]);
    }
    for (const sample of list(at(record, 'glucose_data', 'blood_glucose_samples'))) {
      const when = str(sample['timestamp']);
      b.quantity(`glucose@${when}`, METRICS.glucose, instantOf(when), num(sample['blood_glucose_mg_per_dL']));
    }
    for (const sample of list(at(record, 'temperature_data', 'body_temperature_samples'))) {
      const when = str(sample['timestamp']);
      b.quantity(
        `temperature@${when}`,
        METRICS.body_temperature,
        instantOf(when),
        num(sample['temperature_celsius']),
      );
    }
    list(at(record, 'measurements_data', 'measurements')).forEach((measurement, index) => {
      const when = instantOf(measurement['measurement_time']) ?? day;
      const slot = `measurement[${index}]`;
      b.quantity(`${slot}.weight`, METRICS.body_weight, when, num(measurement['weight_kg']));
      b.quantity(`${slot}.height`, METRICS.body_height, when, num(measurement['height_cm']));
      b.quantity(`${slot}.bmi`, METRICS.bmi, when, num(measurement['BMI']));
      b.quantity(`${slot}.bodyfat`, METRICS.body_fat, when, num(measurement['bodyfat_percentage']));
    });
    for (const sample of list(at(record, 'oxygen_data', 'saturation_samples'))) {
      const when = str(sample['timestamp']);
      b.quantity(`spo2@${when}`, METRICS.spo2, instantOf(when), num(sample['percentage']));
    }
    const heart = obj(at(record, 'heart_data', 'heart_rate_data'));
    heartSummary(b, 'body', heart, day);
    heartSamples(b, 'body', heart, options);
  },

  sleep(b, record, options) {
    const session = periodOf(record);
    const durations = obj(record['sleep_durations_data']);
    const asleep = obj(durations?.['asleep']);
    b.panel('sleep', METRICS.sleep_session, session, [
      [METRICS.sleep_asleep, num(asleep?.['duration_asleep_state_seconds'])],
      [METRICS.sleep_in_bed, num(at(durations ?? {}, 'other', 'duration_in_bed_seconds'))],
      [METRICS.sleep_light, num(asleep?.['duration_light_sleep_state_seconds'])],
      [METRICS.sleep_deep, num(asleep?.['duration_deep_sleep_state_seconds'])],
      [METRICS.sleep_rem, num(asleep?.['duration_REM_sleep_state_seconds'])],
      [METRICS.sleep_awake, num(at(durations ?? {}, 'awake', 'duration_awake_state_seconds'))],
      [METRICS.sleep_efficiency, num(durations?.['sleep_efficiency'])],
    ]);
    const heart = obj(record['heart_rate_data']);
    heartSummary(b, 'sleep', heart, session);
    heartSamples(b, 'sleep', heart, options);
    const breaths = num(at(record, 'respiration_data', 'breaths_data', 'avg_breaths_per_min'));
    b.quantity('respiration', METRICS.respiratory_rate, session, breaths);
    const saturation = num(
      at(record, 'respiration_data', 'oxygen_saturation_data', 'avg_saturation_percentage'),
    );
    b.quantity('spo2', METRICS.spo2, session, saturation);
    b.quantity(
      'skin-temperature',
      METRICS.skin_temperature_delta,
      session,
      num(at(record, 'temperature_data', 'delta')),
    );
  },

  activity(b, record) {
    const workout = periodOf(record);
    const start = Date.parse(str(at(record, 'metadata', 'start_time')) ?? '');
    const end = Date.parse(str(at(record, 'metadata', 'end_time')) ?? '');
    const minutes = Number.isNaN(start) || Number.isNaN(end) ? null : Math.round((end - start) / 600) / 100;
    const parts: [Metric, number | null][] = [
      [METRICS.exercise_duration, minutes],
      [METRICS.workout_distance, num(at(record, 'distance_data', 'summary', 'distance_meters'))],
      [METRICS.workout_steps, num(at(record, 'distance_data', 'summary', 'steps'))],
      [METRICS.active_energy, num(at(record, 'calories_data', 'net_activity_calories'))],
      [METRICS.heart_rate_mean, num(at(record, 'heart_rate_data', 'summary', 'avg_hr_bpm'))],
      [METRICS.heart_rate_max, num(at(record, 'heart_rate_data', 'summary', 'max_hr_bpm'))],
    ];
    const component: ObservationComponent[] = parts.flatMap(([part, value]) =>
      value === null ? [] : [{ code: conceptOf(part), valueQuantity: quantityOf(part, value) }],
    );
    const typeCode = num(at(record, 'metadata', 'type'));
    const kind = (typeCode === null ? undefined : activityTypeName(typeCode)) ?? 'UNKNOWN';
    const name = str(at(record, 'metadata', 'name'));
    const value: CodeableConcept = { text: name ? `${kind}: ${name}` : kind };
    b.add('workout', METRICS.workout, workout, {
      valueCodeableConcept: value,
      ...(component.length ? { component } : {}),
    });
  },

  nutrition(b, record) {
    const day = periodOf(record);
    const summary = obj(record['summary']);
    const macros = obj(summary?.['macros']);
    b.quantity('energy', METRICS.energy_intake, day, num(macros?.['calories']));
    b.panel('nutrition', METRICS.nutrition_day, day, [
      [METRICS.protein, num(macros?.['protein_g'])],
      [METRICS.carbohydrates, num(macros?.['carbohydrates_g'])],
      [METRICS.fat, num(macros?.['fat_g'])],
      [METRICS.fiber, num(macros?.['fiber_g'])],
      [METRICS.sugar, num(macros?.['sugar_g'])],
      [METRICS.sodium, num(macros?.['sodium_mg'])],
      [METRICS.water, num(summary?.['water_ml'])],
    ]);
  },

  menstruation(b, record) {
    const day = periodOf(record);
    const data = obj(record['menstruation_data']);
    if (!data) return;
    const periodStart = str(data['period_start_date']);
    if (periodStart && FHIR_DATE.test(periodStart)) {
      b.add('period-start', METRICS.period_start, day, { valueDateTime: periodStart });
    }
    b.quantity('cycle-day', METRICS.cycle_day, day, num(data['day_in_cycle']));
    b.quantity('cycle-length', METRICS.cycle_length, day, num(data['cycle_length_days']));
    const flowNames = Object.fromEntries(
      Object.entries(MenstruationFlow).map(([name, code]) => [code, name]),
    );
    for (const sample of list(data['menstruation_flow'])) {
      const flow = num(sample['flow']);
      if (flow === null || flowNames[flow] === undefined) continue;
      const when = str(sample['timestamp']);
      b.add(`flow@${when}`, METRICS.menstrual_flow, instantOf(when), {
        valueCodeableConcept: { text: flowNames[flow].toLowerCase() },
      });
    }
  },

  hormone(b, record) {
    const when = instantOf(record['timestamp']);
    b.quantity('lh', METRICS.lh_urine, when, num(record['lh_mIU_per_ml']));
    b.quantity('e3g', METRICS.e3g_urine, when, num(record['e3g_ng_per_ml']));
    b.quantity('pdg', METRICS.pdg_urine, when, num(record['pdg_ug_per_ml']));
    b.quantity('hcg', METRICS.hcg_urine, when, num(record['hcg_mIU_per_ml']));
    b.quantity('fsh', METRICS.fsh_urine, when, num(record['fsh_mIU_per_ml']));
  },
};

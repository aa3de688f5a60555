// Open mHealth data points (https://www.openmhealth.org/documentation/#/schema-docs/schema-library):
// the same stored records as the FHIR mapping, written as `{header, body}` data points, one file type
// per schema. Schema versions are the newest whose references all resolve within the Open mHealth
// library itself (the newer ones that point into the IEEE 1752.1 library, which is not published
// where Tributary could check against it, are not used; docs/fhir.md#open-mhealth).
import { stableUuid } from '../../model/fhir.ts';
import { activityTypeName } from '../../model/index.ts';
import { type ExportedType, fhirDateTime, type Owner } from './map-records.ts';
import type { ExportWriter, Lines } from './writers.ts';

export const OMH_NDJSON = 'application/vnd.openmhealth+ndjson';

/** Schema name -> version written. */
export const OMH_SCHEMAS = {
  'step-count': '3.0',
  'heart-rate': '2.0',
  'blood-pressure': '3.0',
  'body-weight': '2.0',
  'sleep-episode': '1.1',
  'physical-activity': '1.2',
  'blood-glucose': '3.0',
  'body-temperature': '3.0',
  'oxygen-saturation': '2.0',
  'respiratory-rate': '2.0',
} as const;
export type OmhSchema = keyof typeof OMH_SCHEMAS;
export const OMH_SCHEMA_NAMES = Object.keys(OMH_SCHEMAS) as OmhSchema[];

type Json = Record<string, unknown>;
const obj = (value: unknown): Json | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const list = (value: unknown): Json[] =>
  Array.isArray(value)
    ? (value as unknown[]).flatMap((item): Json[] => {
        const found = obj(item);
        return found ? [found] : [];
      })
    : [];
const at = (record: Json, ...path: string[]): unknown =>
  path.reduce<unknown>((value, key) => obj(value)?.[key] ?? null, record);

type TimeFrame =
  { time_interval: { start_date_time: string; end_date_time: string } } | { date_time: string };

function interval(start: unknown, end: unknown): TimeFrame | null {
  const from = fhirDateTime(str(start));
  const to = fhirDateTime(str(end));
  return from && to ? { time_interval: { start_date_time: from, end_date_time: to } } : null;
}
function instant(text: unknown): TimeFrame | null {
  const when = fhirDateTime(str(text));
  return when ? { date_time: when } : null;
}

/** Data points of one record, by schema. */
export function omhPoints(owner: Owner, type: ExportedType, key: string, record: Json, createdAt: string) {
  const points: { schema: OmhSchema; body: Json; slot: string }[] = [];
  const add = (schema: OmhSchema, slot: string, frame: TimeFrame | null, body: Json | null) => {
    if (frame && body) points.push({ schema, slot, body: { ...body, effective_time_frame: frame } });
  };
  const day = interval(at(record, 'metadata', 'start_time'), at(record, 'metadata', 'end_time'));
  const unit = (value: number | null, name: string) => (value === null ? null : { value, unit: name });
  if (type === 'daily') {
    const steps = unit(num(at(record, 'distance_data', 'steps')), 'steps');
    add('step-count', 'steps', day, steps && { step_count: steps });
    const resting = unit(num(at(record, 'heart_rate_data', 'summary', 'resting_hr_bpm')), 'beats/min');
    add(
      'heart-rate',
      'hr.resting',
      day,
      resting && { heart_rate: resting, temporal_relationship_to_physical_activity: 'at rest' },
    );
    const mean = unit(num(at(record, 'heart_rate_data', 'summary', 'avg_hr_bpm')), 'beats/min');
    add('heart-rate', 'hr.mean', day, mean && { heart_rate: mean, descriptive_statistic: 'average' });
    const spo2 = unit(num(at(record, 'oxygen_data', 'avg_saturation_percentage')), '%');
    add(
      'oxygen-saturation',
      'spo2',
      day,
      spo2 && {
        oxygen_saturation: spo2,
        descriptive_statistic: 'average',
        measurement_method: 'pulse oximetry',
      },
    );
  } else if (type === 'body') {
    for (const sample of list(at(record, 'blood_pressure_data', 'blood_pressure_samples'))) {
      const systolic = num(sample['systolic_bp']);
      const diastolic = num(sample['diastolic_bp']);
      if (systolic === null || diastolic === null) continue;
      add('blood-pressure', `bp@${str(sample['timestamp'])}`, instant(sample['timestamp']), {
        systolic_blood_pressure: { value: systolic, unit: 'mmHg' },
        diastolic_blood_pressure: { value: diastolic, unit: 'mmHg' },
      });
    }
    for (const sample of list(at(record, 'glucose_data', 'blood_glucose_samples'))) {
      const value = unit(num(sample['blood_glucose_mg_per_dL']), 'mg/dL');
      add(
        'blood-glucose',
        `glucose@${str(sample['timestamp'])}`,
        instant(sample['timestamp']),
        value && { blood_glucose: value },
      );
    }
    for (const sample of list(at(record, 'temperature_data', 'body_temperature_samples'))) {
      const value = unit(num(sample['temperature_celsius']), 'C');
      add(
        'body-temperature',
        `temperature@${str(sample['timestamp'])}`,
        instant(sample['timestamp']),
        value && { body_temperature: value },
      );
    }
    list(at(record, 'measurements_data', 'measurements')).forEach((measurement, index) => {
      const value = unit(num(measurement['weight_kg']), 'kg');
      add(
        'body-weight',
        `measurement[${index}].weight`,
        instant(measurement['measurement_time']) ?? day,
        value && { body_weight: value },
      );
    });
  } else if (type === 'sleep') {
    const asleep = num(at(record, 'sleep_durations_data', 'asleep', 'duration_asleep_state_seconds'));
    const awake = num(at(record, 'sleep_durations_data', 'awake', 'duration_awake_state_seconds'));
    const latency = num(at(record, 'sleep_durations_data', 'awake', 'sleep_latency_seconds'));
    const efficiency = num(at(record, 'sleep_durations_data', 'sleep_efficiency'));
    const wakeups = num(at(record, 'sleep_durations_data', 'awake', 'num_wakeup_events'));
    const nap = at(record, 'metadata', 'is_nap');
    add('sleep-episode', 'sleep', day, {
      ...(asleep === null ? {} : { total_sleep_time: { value: asleep / 60, unit: 'min' } }),
      ...(awake === null ? {} : { wake_after_sleep_onset: { value: awake / 60, unit: 'min' } }),
      ...(latency === null ? {} : { latency_to_sleep_onset: { value: latency / 60, unit: 'min' } }),
      ...(efficiency === null
        ? {}
        : { sleep_maintenance_efficiency_percentage: { value: efficiency, unit: '%' } }),
      ...(wakeups === null ? {} : { number_of_awakenings: Math.round(wakeups) }),
      ...(typeof nap === 'boolean' ? { is_main_sleep: !nap } : {}),
    });
    const breaths = unit(
      num(at(record, 'respiration_data', 'breaths_data', 'avg_breaths_per_min')),
      'breaths/min',
    );
    add(
      'respiratory-rate',
      'respiration',
      day,
      breaths && { respiratory_rate: breaths, descriptive_statistic: 'average' },
    );
  } else if (type === 'activity') {
    const code = num(at(record, 'metadata', 'type'));
    const name =
      str(at(record, 'metadata', 'name')) ??
      (code === null ? undefined : activityTypeName(code)) ??
      'UNKNOWN';
    const distance = num(at(record, 'distance_data', 'summary', 'distance_meters'));
    const kcal = num(at(record, 'calories_data', 'net_activity_calories'));
    add('physical-activity', 'workout', day, {
      activity_name: name,
      ...(distance === null ? {} : { distance: { value: distance, unit: 'm' } }),
      ...(kcal === null ? {} : { kcal_burned: { value: kcal, unit: 'kcal' } }),
    });
  }
  return points.map(({ schema, body, slot }) => ({
    schema,
    point: {
      header: {
        id: stableUuid(`${owner.userId}|omh|${type}/${key}|${slot}`),
        creation_date_time: createdAt,
        schema_id: { namespace: 'omh', name: schema, version: OMH_SCHEMAS[schema] },
        acquisition_provenance: {
          source_name: `${owner.provider} (connection ${owner.userId})`,
          modality: 'sensed',
        },
        user_id: owner.userId,
      },
      body,
    },
  }));
}

/** The export writer of `_outputFormat=application/vnd.openmhealth+ndjson`; `types` limits the schemas. */
export function omhWriter(types: readonly string[], createdAt: string): ExportWriter {
  const wanted = new Set(types.length > 0 ? types : OMH_SCHEMA_NAMES);
  return {
    start() {},
    record(owner, type, key, record, _devices, into: Lines) {
      for (const { schema, point } of omhPoints(owner, type, key, record, createdAt)) {
        if (!wanted.has(schema)) continue;
        const lines = into.get(schema);
        const line = JSON.stringify(point);
        if (lines) lines.push(line);
        else into.set(schema, [line]);
      }
    },
  };
}

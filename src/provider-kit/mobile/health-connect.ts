// Android Health Connect records, as a companion app serializes them (the Jetpack record classes
// to JSON: `recordType`, the record's fields, unit objects as accessor sets such as
// `{inKilocalories}`, `metadata{id, dataOrigin, device, lastModifiedTime}`). Shared by every
// provider whose companion app sends records in this shape (each says why in its declaration),
// so one normalizer serves them all.
import { ActivityType } from '../../model/activity-type-codes.ts';
import { MenstruationFlow, SleepLevel } from '../../model/code-tables.ts';
import {
  type DeviceClass,
  emptyBatch,
  type MobileBatch,
  type MobileKind,
  lookupOwn,
  MobileRecordError,
  type MobileSample,
  type MobileSource,
  numberOf,
  parsePlatformTime,
  readDeletions,
  readRecords,
  type RoutePoint,
} from './samples.ts';
import {
  type Accessors,
  asObject,
  celsius,
  ENERGY,
  GLUCOSE,
  GRAMS,
  type Json,
  LENGTH,
  MASS,
  MILLIGRAMS,
  PERCENT,
  PRESSURE,
  unitValue,
  VOLUME,
} from './health-connect-units.ts';

/** `+01:00`, `{totalSeconds: 3600}` or seconds; null when absent (Health Connect allows that). */
function zoneOffsetMinutes(value: unknown): number | null {
  if (typeof value === 'string') {
    const match = /^([+-])(\d{2}):?(\d{2})$/.exec(value);
    if (value === 'Z') return 0;
    if (match) return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
  }
  const seconds = numberOf(asObject(value)?.totalSeconds ?? value);
  return seconds === null ? null : Math.round(seconds / 60);
}

/** Instant of a Health Connect time; its local offset from the zone-offset field, else from the text. */
function timeOf(record: Json, field: string, zoneField: string) {
  const text = record[field];
  if (typeof text === 'number') {
    const offset = zoneOffsetMinutes(record[zoneField]) ?? 0;
    return { ms: text, offsetMinutes: offset };
  }
  const parsed = parsePlatformTime(text, field);
  const zone = zoneOffsetMinutes(record[zoneField]);
  return { ms: parsed.ms, offsetMinutes: zone ?? parsed.offsetMinutes };
}

const DEVICE_TYPES: Record<string, DeviceClass> = {
  '1': 'watch',
  '2': 'phone',
  '3': 'scale',
  WATCH: 'watch',
  TYPE_WATCH: 'watch',
  PHONE: 'phone',
  TYPE_PHONE: 'phone',
  SCALE: 'scale',
  TYPE_SCALE: 'scale',
  RING: 'watch',
  TYPE_RING: 'watch',
  '4': 'watch',
  FITNESS_BAND: 'watch',
  TYPE_FITNESS_BAND: 'watch',
  '6': 'watch',
};

function sourceOf(record: Json): { id: string; source: MobileSource } {
  const metadata = asObject(record.metadata);
  if (!metadata) throw new MobileRecordError('metadata is missing');
  const origin = metadata.dataOrigin;
  const packageName =
    typeof origin === 'string' ? origin : (asObject(origin)?.packageName as string | undefined);
  const clientId = typeof metadata.clientRecordId === 'string' ? metadata.clientRecordId : null;
  const id =
    typeof metadata.id === 'string' && metadata.id !== ''
      ? metadata.id
      : clientId && packageName
        ? `${packageName}:${clientId}`
        : null;
  if (!id) throw new MobileRecordError('metadata.id is missing');
  const device = asObject(metadata.device);
  const deviceType = device ? String(device.type ?? '') : '';
  return {
    id,
    source: {
      name: typeof packageName === 'string' && packageName !== '' ? packageName : 'unknown',
      device: DEVICE_TYPES[deviceType.toUpperCase()] ?? 'other',
      model: typeof device?.model === 'string' ? device.model : null,
      manufacturer: typeof device?.manufacturer === 'string' ? device.manufacturer : null,
    },
  };
}

type Reader = (record: Json, base: Base) => MobileSample[];
type Base = { id: string; source: MobileSource };

function interval(record: Json) {
  const start = timeOf(record, 'startTime', 'startZoneOffset');
  const end = timeOf(record, 'endTime', 'endZoneOffset');
  if (end.ms < start.ms) throw new MobileRecordError('endTime is before startTime');
  return { startMs: start.ms, endMs: end.ms, offsetMinutes: start.offsetMinutes };
}

function instant(record: Json) {
  const at = timeOf(record, 'time', 'zoneOffset');
  return { startMs: at.ms, endMs: at.ms, offsetMinutes: at.offsetMinutes };
}

const intervalValue =
  (kind: MobileKind, field: string, units: Accessors | null): Reader =>
  (record, base) => [
    {
      ...base,
      kind,
      ...interval(record),
      value: units ? unitValue(record[field], units, field) : requireNumber(record, field),
    },
  ];

const instantValue =
  (kind: MobileKind, field: string, units: Accessors | null): Reader =>
  (record, base) => [
    {
      ...base,
      kind,
      ...instant(record),
      value: units ? unitValue(record[field], units, field) : requireNumber(record, field),
    },
  ];

function requireNumber(record: Json, field: string): number {
  const value = numberOf(record[field]);
  if (value === null) throw new MobileRecordError(`${field} is missing`);
  return value;
}

/** Series records: one sample per entry, ids derived from the record id and the entry time. */
const series =
  (kind: MobileKind, field: string): Reader =>
  (record, base) => {
    const { offsetMinutes } = interval(record);
    const samples = record.samples;
    if (!Array.isArray(samples)) throw new MobileRecordError('samples is missing');
    return samples.map((entry, index) => {
      const object = asObject(entry);
      if (!object) throw new MobileRecordError(`samples[${index}] is not an object`);
      const at = parsePlatformTime(object.time, `samples[${index}].time`);
      return {
        ...base,
        id: `${base.id}#${index}`,
        kind,
        startMs: at.ms,
        endMs: at.ms,
        offsetMinutes,
        value: requireNumber(object, field),
      };
    });
  };

const SLEEP_STAGES: Record<string, number> = {
  '0': SleepLevel.UNKNOWN,
  '1': SleepLevel.AWAKE,
  '2': SleepLevel.SLEEPING,
  '3': SleepLevel.OUT_OF_BED,
  '4': SleepLevel.LIGHT,
  '5': SleepLevel.DEEP,
  '6': SleepLevel.REM,
  '7': SleepLevel.AWAKE,
};

const FLOWS: Record<string, number> = {
  '0': MenstruationFlow.UNKNOWN,
  '1': MenstruationFlow.LIGHT,
  '2': MenstruationFlow.MEDIUM,
  '3': MenstruationFlow.HEAVY,
};

/** Health Connect exercise types (the common ones) -> ActivityType. */
const EXERCISE_TYPES: Record<number, number> = {
  0: ActivityType.OTHER,
  8: ActivityType.BIKING,
  9: ActivityType.STATIONARY_BIKING,
  25: ActivityType.ELLIPTICAL,
  37: ActivityType.HIKING,
  56: ActivityType.RUNNING,
  57: ActivityType.TREADMILL_RUNNING,
  70: ActivityType.STRENGTH_TRAINING,
  74: ActivityType.SWIMMING_SWIMMING_POOL,
  73: ActivityType.SWIMMING_OPEN_WATER,
  79: ActivityType.WALKING,
  83: ActivityType.YOGA,
  53: ActivityType.ROWING_MACHINE,
  36: ActivityType.INTERVAL_TRAINING,
};

const NUTRIENTS: [string, string, Accessors][] = [
  ['energy', 'calories', ENERGY],
  ['protein', 'protein_g', GRAMS],
  ['totalCarbohydrate', 'carbohydrates_g', GRAMS],
  ['totalFat', 'fat_g', GRAMS],
  ['saturatedFat', 'saturated_fat_g', GRAMS],
  ['sugar', 'sugar_g', GRAMS],
  ['dietaryFiber', 'fiber_g', GRAMS],
  ['sodium', 'sodium_mg', MILLIGRAMS],
  ['cholesterol', 'cholesterol_mg', MILLIGRAMS],
  ['caffeine', 'caffeine_mg', MILLIGRAMS],
];

const READERS: Record<string, Reader> = {
  Steps: intervalValue('steps', 'count', null),
  Distance: intervalValue('distance', 'distance', LENGTH),
  ActiveCaloriesBurned: intervalValue('active_energy', 'energy', ENERGY),
  BasalMetabolicRate: () => [],
  FloorsClimbed: intervalValue('floors', 'floors', null),
  HeartRate: series('heart_rate', 'beatsPerMinute'),
  RestingHeartRate: instantValue('resting_heart_rate', 'beatsPerMinute', null),
  HeartRateVariabilityRmssd: instantValue('hrv_rmssd', 'heartRateVariabilityMillis', null),
  OxygenSaturation: instantValue('oxygen_saturation', 'percentage', PERCENT),
  RespiratoryRate: instantValue('respiratory_rate', 'rate', null),
  Vo2Max: instantValue('vo2max', 'vo2MillilitersPerMinuteKilogram', null),
  Weight: instantValue('weight', 'weight', MASS),
  Height: (record, base) => [
    { ...base, kind: 'height', ...instant(record), value: unitValue(record.height, LENGTH, 'height') * 100 },
  ],
  BodyFat: instantValue('body_fat', 'percentage', PERCENT),
  LeanBodyMass: instantValue('lean_mass', 'mass', MASS),
  BloodPressure: (record, base) => [
    {
      ...base,
      id: `${base.id}#s`,
      kind: 'bp_systolic',
      ...instant(record),
      value: unitValue(record.systolic, PRESSURE, 'systolic'),
    },
    {
      ...base,
      id: `${base.id}#d`,
      kind: 'bp_diastolic',
      ...instant(record),
      value: unitValue(record.diastolic, PRESSURE, 'diastolic'),
    },
  ],
  BloodGlucose: instantValue('glucose', 'level', GLUCOSE),
  BodyTemperature: (record, base) => [
    {
      ...base,
      kind: 'body_temperature',
      ...instant(record),
      value: celsius(record.temperature, 'temperature'),
    },
  ],
  Hydration: intervalValue('water', 'volume', VOLUME),
  Nutrition: (record, base) => {
    const parts: Record<string, number> = {};
    for (const [field, key, units] of NUTRIENTS) {
      if (record[field] !== undefined && record[field] !== null)
        parts[key] = unitValue(record[field], units, field);
    }
    return [{ ...base, kind: 'nutrition', ...interval(record), value: null, parts }];
  },
  MenstruationFlow: (record, base) => [
    {
      ...base,
      kind: 'menstrual_flow',
      ...instant(record),
      value: null,
      level: lookupOwn(FLOWS, record.flow ?? 0) ?? 0,
    },
  ],
  SleepSession: (record, base) => {
    const session = interval(record);
    const stages = Array.isArray(record.stages) && record.stages.length > 0 ? record.stages : null;
    if (!stages) return [{ ...base, kind: 'sleep', ...session, value: null, level: SleepLevel.SLEEPING }];
    return stages.map((entry, index) => {
      const stage = asObject(entry);
      if (!stage) throw new MobileRecordError(`stages[${index}] is not an object`);
      const start = parsePlatformTime(stage.startTime, `stages[${index}].startTime`);
      const end = parsePlatformTime(stage.endTime, `stages[${index}].endTime`);
      return {
        ...base,
        id: `${base.id}#${index}`,
        kind: 'sleep' as const,
        startMs: start.ms,
        endMs: end.ms,
        offsetMinutes: session.offsetMinutes,
        value: null,
        level: SLEEP_STAGES[String(stage.stage ?? 0)] ?? SleepLevel.UNKNOWN,
      };
    });
  },
  ExerciseSession: (record, base) => {
    const span = interval(record);
    const route = asObject(record.exerciseRoute ?? record.exerciseRouteResult);
    const locations = Array.isArray(route?.route)
      ? route.route
      : Array.isArray(route?.locations)
        ? route.locations
        : [];
    const points: RoutePoint[] = [];
    for (const entry of locations) {
      const point = asObject(entry);
      const lat = numberOf(point?.latitude);
      const lng = numberOf(point?.longitude);
      if (!point || lat === null || lng === null) continue;
      const at = parsePlatformTime(point.time, 'route time');
      points.push({
        t: at.ms,
        lat,
        lng,
        alt: numberOf(asObject(point.altitude)?.inMeters ?? point.altitude),
      });
    }
    return [
      {
        ...base,
        kind: 'workout',
        ...span,
        value: null,
        workout: {
          type: EXERCISE_TYPES[numberOf(record.exerciseType) ?? 0] ?? ActivityType.OTHER,
          name: typeof record.title === 'string' ? record.title : null,
          durationSeconds: (span.endMs - span.startMs) / 1000,
          distanceMeters: null,
          energyKcal: null,
          avgHr: null,
          minHr: null,
          maxHr: null,
          route: points,
        },
      },
    ];
  },
};

function readHealthConnectRecord(record: Json): MobileSample[] {
  const type = record.recordType;
  if (typeof type !== 'string') throw new MobileRecordError('recordType is missing');
  const reader = READERS[type.replace(/Record$/, '')];
  if (!reader) throw new MobileRecordError(`recordType ${type} is not supported`);
  return reader(record, sourceOf(record));
}

/** Reads `{records, deletions}` of Health Connect-shaped records. */
export function parseHealthConnectUpload(body: Record<string, unknown>, nowMs: number): MobileBatch {
  const batch = emptyBatch();
  batch.deletions = readDeletions(body.deletions);
  readRecords(body.records, 'records', readHealthConnectRecord, batch, nowMs);
  return batch;
}

// Apple HealthKit -> mobile samples. One normalizer for both ways Apple data arrives: the SDK
// upload (`records`, `workouts`, `activity_summaries` carrying HealthKit's export attributes, with
// the sample UUID) and the Health app's export.xml (the same attributes on `Record`, `Workout` and
// `ActivitySummary` elements, without UUIDs: the id is then a hash of the record's content, so a
// re-export yields the same ids). Units are read from each record's `unit`, never assumed from
// the type: exports write whatever unit the user's locale displays.
import { hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ActivityType } from '../../model/activity-type.ts';
import { MenstruationFlow, SleepLevel } from '../../model/enums.ts';
import { readGpxPoints } from '../../provider-kit/mobile/gpx.ts';
import { commonSportNames, sportKey } from '../../provider-kit/normalize/sport-names.ts';
import {
  type DeviceClass,
  emptyBatch,
  type MobileBatch,
  type MobileHooks,
  type MobileKind,
  MobileRecordError,
  type MobileSample,
  type MobileSource,
  numberOf,
  optionalString,
  parsePlatformTime,
  plausibleSamples,
  readDeletions,
  readRecords,
  requireString,
  type RoutePoint,
  type XmlElement,
} from '../../provider-kit/mobile/samples.ts';

type Json = Record<string, unknown>;
type Conversion = Record<string, number>;

const LENGTH_M: Conversion = {
  m: 1,
  km: 1000,
  mi: 1609.344,
  yd: 0.9144,
  ft: 0.3048,
  cm: 0.01,
  in: 0.0254,
  mm: 0.001,
};
const ENERGY_KCAL: Conversion = { kcal: 1, Cal: 1, cal: 0.001, kJ: 1 / 4.184, J: 1 / 4184 };
const MASS_KG: Conversion = { kg: 1, g: 0.001, lb: 0.45359237, st: 6.35029318, oz: 0.028349523125 };
const MASS_G: Conversion = { g: 1, mg: 0.001, mcg: 0.000001, kg: 1000, oz: 28.349523125 };
const MASS_MG: Conversion = { mg: 1, g: 1000, mcg: 0.001 };
const PER_MINUTE: Conversion = { 'count/min': 1, 'count/s': 60 };
const MS: Conversion = { ms: 1, s: 1000 };
const COUNT: Conversion = { count: 1 };
const PERCENT: Conversion = { '%': 100 };
const PRESSURE: Conversion = { mmHg: 1, cmAq: 0.735559, kPa: 7.50062 };
const VOLUME_ML: Conversion = { mL: 1, L: 1000, fl_oz_us: 29.5735295625, cup_us: 236.5882365 };
const VO2: Conversion = { 'mL/min·kg': 1, 'ml/(kg*min)': 1 };
const HEIGHT_CM: Conversion = { cm: 1, m: 100, ft: 30.48, in: 2.54, mm: 0.1 };

function convert(value: number, unit: string | null, table: Conversion, type: string): number {
  const factor = table[unit ?? ''];
  if (factor === undefined) throw new MobileRecordError(`unit "${unit}" is not known for ${type}`);
  return value * factor;
}

function celsius(value: number, unit: string | null): number {
  if (unit === 'degC') return value;
  if (unit === 'degF') return ((value - 32) * 5) / 9;
  if (unit === 'K') return value - 273.15;
  throw new MobileRecordError(`unit "${unit}" is not a temperature`);
}

/** mg/dL, or a molar unit `mmol<180.1558800000541>/L` (with the molar mass) or plain mmol/L. */
function milligramsPerDeciliter(value: number, unit: string | null): number {
  if (unit === 'mg/dL') return value;
  const molar = /^mmol(?:<([\d.]+)>)?\/L$/.exec(unit ?? '');
  if (molar) return (value * Number(molar[1] ?? 180.15588)) / 10;
  throw new MobileRecordError(`unit "${unit}" is not a glucose unit`);
}

type QuantityRule = {
  kind: MobileKind;
  to(value: number, unit: string | null, type: string): number;
  part?: string;
};
const via = (kind: MobileKind, table: Conversion): QuantityRule => ({
  kind,
  to: (value, unit, type) => convert(value, unit, table, type),
});
const nutrient = (part: string, table: Conversion): QuantityRule => ({
  kind: 'nutrition',
  part,
  to: (value, unit, type) => convert(value, unit, table, type),
});

const Q = 'HKQuantityTypeIdentifier';
const QUANTITIES: Record<string, QuantityRule> = {
  [`${Q}StepCount`]: via('steps', COUNT),
  [`${Q}DistanceWalkingRunning`]: via('distance', LENGTH_M),
  [`${Q}DistanceCycling`]: via('distance', LENGTH_M),
  [`${Q}DistanceSwimming`]: via('distance', LENGTH_M),
  [`${Q}DistanceWheelchair`]: via('distance', LENGTH_M),
  [`${Q}ActiveEnergyBurned`]: via('active_energy', ENERGY_KCAL),
  [`${Q}BasalEnergyBurned`]: via('basal_energy', ENERGY_KCAL),
  [`${Q}FlightsClimbed`]: via('floors', COUNT),
  [`${Q}HeartRate`]: via('heart_rate', PER_MINUTE),
  [`${Q}RestingHeartRate`]: via('resting_heart_rate', PER_MINUTE),
  [`${Q}HeartRateVariabilitySDNN`]: via('hrv_sdnn', MS),
  [`${Q}OxygenSaturation`]: via('oxygen_saturation', PERCENT),
  [`${Q}RespiratoryRate`]: via('respiratory_rate', PER_MINUTE),
  [`${Q}VO2Max`]: via('vo2max', VO2),
  [`${Q}BodyMass`]: via('weight', MASS_KG),
  [`${Q}LeanBodyMass`]: via('lean_mass', MASS_KG),
  [`${Q}BodyFatPercentage`]: via('body_fat', PERCENT),
  [`${Q}Height`]: via('height', HEIGHT_CM),
  [`${Q}BodyMassIndex`]: via('bmi', COUNT),
  [`${Q}BloodPressureSystolic`]: via('bp_systolic', PRESSURE),
  [`${Q}BloodPressureDiastolic`]: via('bp_diastolic', PRESSURE),
  [`${Q}BloodGlucose`]: { kind: 'glucose', to: (value, unit) => milligramsPerDeciliter(value, unit) },
  [`${Q}BodyTemperature`]: { kind: 'body_temperature', to: (value, unit) => celsius(value, unit) },
  [`${Q}DietaryWater`]: via('water', VOLUME_ML),
  [`${Q}DietaryEnergyConsumed`]: nutrient('calories', ENERGY_KCAL),
  [`${Q}DietaryProtein`]: nutrient('protein_g', MASS_G),
  [`${Q}DietaryCarbohydrates`]: nutrient('carbohydrates_g', MASS_G),
  [`${Q}DietaryFatTotal`]: nutrient('fat_g', MASS_G),
  [`${Q}DietaryFatSaturated`]: nutrient('saturated_fat_g', MASS_G),
  [`${Q}DietarySugar`]: nutrient('sugar_g', MASS_G),
  [`${Q}DietaryFiber`]: nutrient('fiber_g', MASS_G),
  [`${Q}DietarySodium`]: nutrient('sodium_mg', MASS_MG),
  [`${Q}DietaryCholesterol`]: nutrient('cholesterol_mg', MASS_MG),
  [`${Q}DietaryCaffeine`]: nutrient('caffeine_mg', MASS_MG),
};

const C = 'HKCategoryValue';
const SLEEP_VALUES: Record<string, number> = {
  [`${C}SleepAnalysisInBed`]: SleepLevel.UNKNOWN,
  [`${C}SleepAnalysisAsleep`]: SleepLevel.SLEEPING,
  [`${C}SleepAnalysisAsleepUnspecified`]: SleepLevel.SLEEPING,
  [`${C}SleepAnalysisAwake`]: SleepLevel.AWAKE,
  [`${C}SleepAnalysisAsleepCore`]: SleepLevel.LIGHT,
  [`${C}SleepAnalysisAsleepDeep`]: SleepLevel.DEEP,
  [`${C}SleepAnalysisAsleepREM`]: SleepLevel.REM,
  '0': SleepLevel.UNKNOWN,
  '1': SleepLevel.SLEEPING,
  '2': SleepLevel.AWAKE,
  '3': SleepLevel.LIGHT,
  '4': SleepLevel.DEEP,
  '5': SleepLevel.REM,
};
const FLOW_VALUES: Record<string, number> = {
  [`${C}MenstrualFlowUnspecified`]: MenstruationFlow.HAD,
  [`${C}MenstrualFlowLight`]: MenstruationFlow.LIGHT,
  [`${C}MenstrualFlowMedium`]: MenstruationFlow.MEDIUM,
  [`${C}MenstrualFlowHeavy`]: MenstruationFlow.HEAVY,
  [`${C}MenstrualFlowNone`]: MenstruationFlow.NONE,
  '1': MenstruationFlow.HAD,
  '2': MenstruationFlow.LIGHT,
  '3': MenstruationFlow.MEDIUM,
  '4': MenstruationFlow.HEAVY,
  '5': MenstruationFlow.NONE,
};

/**
 * A real HKDevice description is ~200 characters. The pattern below retries its `\w+` from every
 * position of a run without a colon (quadratic: 15 s for a 64 KB device string), so longer text
 * is not a device description and is not searched.
 */
const MAX_DEVICE_CHARS = 1024;

/** `key:value` pairs of an HKDevice description (the export's `device`), or the SDK's object. */
function deviceFields(device: unknown): Record<string, string> {
  if (typeof device === 'object' && device !== null) return device as Record<string, string>;
  if (typeof device !== 'string' || device.length > MAX_DEVICE_CHARS) return {};
  const fields: Record<string, string> = {};
  for (const match of device.matchAll(/(\w+):([^,>]*)/g)) fields[match[1]!] = match[2]!.trim();
  return fields;
}

/** Sources repeat for millions of records: each (name, device) is read once. */
const sources = new Map<string, MobileSource>();

// Records come in long runs from one source: the last one is compared before any hashing.
let lastSource: { name: unknown; device: unknown; source: MobileSource } | null = null;

function sourceOf(record: Json): MobileSource {
  if (lastSource && lastSource.name === record.sourceName && lastSource.device === record.device)
    return lastSource.source;
  const source = cachedSource(record);
  lastSource = { name: record.sourceName, device: record.device, source };
  return source;
}

function cachedSource(record: Json): MobileSource {
  const key =
    typeof record.device === 'object' ? null : `${String(record.sourceName)}\u0000${String(record.device)}`;
  const known = key === null ? undefined : sources.get(key);
  if (known) return known;
  const source = readSource(record);
  // Only short keys are kept: a thousand hostile 64 KB device strings would otherwise stay cached.
  if (key !== null && key.length <= 2 * MAX_DEVICE_CHARS) {
    if (sources.size >= 1000) sources.clear();
    sources.set(key, source);
  }
  return source;
}

function readSource(record: Json): MobileSource {
  const name = optionalString(record, 'sourceName') ?? 'unknown';
  const device = deviceFields(record.device);
  const model = typeof device.model === 'string' ? device.model : null;
  const probe = `${model ?? ''} ${device.name ?? ''} ${name}`;
  const kind: DeviceClass = /watch/i.test(probe) ? 'watch' : /iphone|phone/i.test(probe) ? 'phone' : 'other';
  return {
    name,
    device: kind,
    model,
    manufacturer: typeof device.manufacturer === 'string' ? device.manufacturer : null,
  };
}

/** The sample UUID (SDK), else a hash of what identifies an export record (mobile-sources.md §2.3). */
function idOf(record: Json, fields: readonly string[]): string {
  const uuid = optionalString(record, 'uuid');
  if (uuid) return uuid;
  let text = '';
  for (const field of fields) text += `${String(record[field] ?? '')}\u0000`;
  return `h:${hash('sha256', text, 'base64url').slice(0, 32)}`;
}

const RECORD_IDENTITY = ['type', 'sourceName', 'startDate', 'endDate', 'value', 'unit'] as const;

function span(record: Json) {
  const start = parsePlatformTime(record.startDate, 'startDate');
  // Instantaneous samples (heart rate, the bulk of an export) end when they start.
  const end =
    record.endDate === undefined || record.endDate === record.startDate
      ? start
      : parsePlatformTime(record.endDate, 'endDate');
  if (end.ms < start.ms) throw new MobileRecordError('endDate is before startDate');
  const zone = metadataOf(record).HKTimeZone;
  return {
    startMs: start.ms,
    endMs: end.ms,
    offsetMinutes: zone ? (zoneOffset(zone, start.ms) ?? start.offsetMinutes) : start.offsetMinutes,
  };
}

/** The offset of an IANA zone at an instant (HKTimeZone metadata beats the export's written offset). */
const zoneFormats = new Map<string, Intl.DateTimeFormat>();

function zoneOffset(zone: string, at: number): number | null {
  try {
    let format = zoneFormats.get(zone);
    if (!format) {
      format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
      if (zoneFormats.size < 1000) zoneFormats.set(zone, format);
    }
    const parts = format.formatToParts(at);
    const name = parts.find((part) => part.type === 'timeZoneName')?.value ?? '';
    const match = /GMT([+-])(\d{2}):?(\d{2})?/.exec(name);
    if (name === 'GMT') return 0;
    return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3] ?? 0)) : null;
  } catch {
    return null;
  }
}

function metadataOf(record: Json): Record<string, string> {
  const metadata = record.metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return {};
  return metadata as Record<string, string>;
}

/** One HealthKit quantity or category sample. Types Tributary has no place for yield nothing. */
export function readAppleRecord(record: Json): MobileSample[] {
  const type = requireString(record, 'type');
  const base = { id: idOf(record, RECORD_IDENTITY), source: sourceOf(record), ...span(record) };
  const quantity = QUANTITIES[type];
  if (quantity) {
    const raw = numberOf(record.value);
    if (raw === null) throw new MobileRecordError(`value of ${type} is not a number`);
    const value = quantity.to(raw, optionalString(record, 'unit'), type);
    if (quantity.part)
      return [{ ...base, kind: 'nutrition', value: null, parts: { [quantity.part]: value } }];
    return [{ ...base, kind: quantity.kind, value }];
  }
  if (type === 'HKCategoryTypeIdentifierSleepAnalysis') {
    const level = SLEEP_VALUES[String(record.value)];
    if (level === undefined) throw new MobileRecordError(`sleep value ${String(record.value)} is not known`);
    return [{ ...base, kind: 'sleep', value: null, level }];
  }
  if (type === 'HKCategoryTypeIdentifierMenstrualFlow') {
    const level = FLOW_VALUES[String(record.value)];
    if (level === undefined)
      throw new MobileRecordError(`menstrual flow ${String(record.value)} is not known`);
    return [{ ...base, kind: 'menstrual_flow', value: null, level }];
  }
  return [];
}

const WORKOUT_NAMES: Record<string, number> = {
  traditionalstrengthtraining: ActivityType.STRENGTH_TRAINING,
  functionalstrengthtraining: ActivityType.STRENGTH_TRAINING,
  highintensityintervaltraining: ActivityType.HIIT,
  mixedcardio: ActivityType.CARDIO_TRAINING,
  rowing: ActivityType.ROWING,
  swimming: ActivityType.SWIMMING,
  cycling: ActivityType.BIKING,
};

function activityTypeOf(name: string | null): number {
  const key = sportKey((name ?? '').replace(/^HKWorkoutActivityType/, ''));
  return WORKOUT_NAMES[key] ?? commonSportNames[key] ?? ActivityType.OTHER;
}

type Statistic = {
  type: string;
  average: number | null;
  minimum: number | null;
  maximum: number | null;
  sum: number | null;
  unit: string | null;
};

function statisticsOf(workout: Json): Statistic[] {
  const list = Array.isArray(workout.statistics) ? workout.statistics : [];
  return list.flatMap((entry) => {
    if (typeof entry !== 'object' || entry === null) return [];
    const stat = entry as Json;
    return [
      {
        type: String(stat.type ?? ''),
        average: numberOf(stat.average),
        minimum: numberOf(stat.minimum),
        maximum: numberOf(stat.maximum),
        sum: numberOf(stat.sum),
        unit: optionalString(stat, 'unit'),
      },
    ];
  });
}

function routeOf(workout: Json): RoutePoint[] {
  const list = Array.isArray(workout.route) ? workout.route : [];
  const points: RoutePoint[] = [];
  for (const entry of list) {
    if (typeof entry !== 'object' || entry === null) continue;
    const point = entry as Json;
    const lat = numberOf(point.latitude);
    const lng = numberOf(point.longitude);
    if (lat === null || lng === null) continue;
    points.push({
      t: parsePlatformTime(point.date ?? point.timestamp, 'route date').ms,
      lat,
      lng,
      alt: numberOf(point.altitude),
    });
  }
  return points;
}

/** A workout distance as written, or null when it is the zero HealthKit writes for "not measured". */
const measuredDistance = (value: number | null) => (value === 0 ? null : value);

const WORKOUT_IDENTITY = ['workoutActivityType', 'sourceName', 'startDate', 'endDate'] as const;

/** One HKWorkout, with its totals, per-type statistics (newer exports) and route points. */
export function readAppleWorkout(workout: Json): MobileSample[] {
  const type = optionalString(workout, 'workoutActivityType');
  const base = { id: idOf(workout, WORKOUT_IDENTITY), source: sourceOf(workout), ...span(workout) };
  const stats = statisticsOf(workout);
  const stat = (suffix: string) => stats.find((entry) => entry.type === `${Q}${suffix}`);
  const duration = numberOf(workout.duration);
  const durationUnit = optionalString(workout, 'durationUnit') ?? 'min';
  // HealthKit writes totalDistance="0" for a workout nothing measured a distance for (strength,
  // yoga, an indoor run without a pedometer estimate). Zero is then no measurement: the distance
  // comes from the workout's statistics or, in the unified record, its distance samples, or is null.
  const distance = measuredDistance(numberOf(workout.totalDistance));
  const energy = numberOf(workout.totalEnergyBurned);
  const distanceStat = stat('DistanceWalkingRunning') ?? stat('DistanceCycling') ?? stat('DistanceSwimming');
  const energyStat = stat('ActiveEnergyBurned');
  const heart = stat('HeartRate');
  const hr = (value: number | null | undefined) =>
    value == null ? null : convert(value, heart?.unit ?? 'count/min', PER_MINUTE, 'HeartRate');
  return [
    {
      ...base,
      kind: 'workout',
      value: null,
      workout: {
        type: activityTypeOf(type),
        name: type ? type.replace(/^HKWorkoutActivityType/, '') : null,
        durationSeconds:
          duration === null
            ? (base.endMs - base.startMs) / 1000
            : convert(duration, durationUnit, { min: 60, s: 1, hr: 3600 }, 'duration'),
        distanceMeters:
          distance !== null
            ? convert(
                distance,
                optionalString(workout, 'totalDistanceUnit') ?? 'km',
                LENGTH_M,
                'totalDistance',
              )
            : measuredDistance(distanceStat?.sum ?? null) !== null
              ? convert(distanceStat!.sum!, distanceStat!.unit, LENGTH_M, 'distance statistic')
              : null,
        energyKcal:
          energy !== null
            ? convert(
                energy,
                optionalString(workout, 'totalEnergyBurnedUnit') ?? 'kcal',
                ENERGY_KCAL,
                'totalEnergyBurned',
              )
            : energyStat?.sum != null
              ? convert(energyStat.sum, energyStat.unit, ENERGY_KCAL, 'energy statistic')
              : null,
        avgHr: hr(heart?.average),
        minHr: hr(heart?.minimum),
        maxHr: hr(heart?.maximum),
        route: routeOf(workout),
      },
    },
  ];
}

/** The day's Activity rings: a day, not a time. */
export function readAppleActivitySummary(summary: Json): MobileSample[] {
  const day = requireString(summary, 'dateComponents');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new MobileRecordError(`dateComponents "${day}" is not a date`);
  const parts: Record<string, number> = {};
  const energy = numberOf(summary.activeEnergyBurned);
  if (energy !== null)
    parts.active_energy_kcal = convert(
      energy,
      optionalString(summary, 'activeEnergyBurnedUnit') ?? 'kcal',
      ENERGY_KCAL,
      'activeEnergyBurned',
    );
  const exercise = numberOf(summary.appleExerciseTime);
  if (exercise !== null) parts.exercise_minutes = exercise;
  const stand = numberOf(summary.appleStandHours);
  if (stand !== null) parts.stand_hours = stand;
  const at = Date.parse(`${day}T00:00:00Z`);
  return [
    {
      id: `summary:${day}`,
      kind: 'activity_summary',
      startMs: at,
      endMs: at,
      offsetMinutes: 0,
      day,
      value: null,
      parts,
      source: { name: 'Activity', device: 'other', model: null, manufacturer: null },
    },
  ];
}

function parseAppleUpload(body: Record<string, unknown>, nowMs: number): MobileBatch {
  const batch = emptyBatch();
  batch.deletions = readDeletions(body.deletions);
  readRecords(body.records, 'records', readAppleRecord, batch, nowMs);
  readRecords(body.workouts, 'workouts', readAppleWorkout, batch, nowMs);
  readRecords(body.activity_summaries, 'activity_summaries', readAppleActivitySummary, batch, nowMs);
  return batch;
}

// ---- export.xml elements -> the upload's JSON shape -> the same readers ----

/** The element's attributes as the upload's record, metadata entries folded in (the element is ours to change). */
function withMetadata(element: XmlElement): Json {
  const record: Json = element.attributes;
  if (element.children.length === 0) return record;
  const metadata: Record<string, string> = {};
  for (const child of element.children)
    if (child.name === 'MetadataEntry' && child.attributes.key)
      metadata[child.attributes.key] = child.attributes.value ?? '';
  record.metadata = metadata;
  return record;
}

function workoutFromElement(element: XmlElement): Json {
  const workout = withMetadata(element);
  workout.statistics = element.children
    .filter((child) => child.name === 'WorkoutStatistics')
    .map((child) => child.attributes);
  // Version 8 exports carry the route inline; newer ones point at a GPX file of the archive,
  // whose points the export reader hands over as the FileReference's children (readRoute).
  workout.route = element.children
    .filter((child) => child.name === 'WorkoutRoute')
    .flatMap((route) =>
      route.children.flatMap((child) =>
        child.name === 'Location'
          ? [child.attributes]
          : child.name === 'FileReference'
            ? child.children.map((point) => point.attributes)
            : [],
      ),
    );
  return workout;
}

/** A route's GPX file (streamed, bounded: provider-kit/mobile/gpx.ts) as inline `Location`s. */
async function readRoute(source: Readable): Promise<XmlElement[]> {
  const points = await readGpxPoints(source);
  return points.map((point) => ({ name: 'Location', attributes: point, children: [] }));
}

/**
 * An export element's samples, each checked by the plausibility check every source passes
 * (model/plausibility.ts). Against the machine's clock: an export is read wherever its reader
 * runs (a sandboxed child process), with no request clock, and the window's year ahead makes
 * minutes of difference irrelevant.
 */
function fromExportElement(element: XmlElement): MobileSample[] {
  return plausibleSamples(samplesOfElement(element), Date.now());
}

function samplesOfElement(element: XmlElement): MobileSample[] {
  switch (element.name) {
    case 'Record':
      return readAppleRecord(withMetadata(element));
    case 'Workout':
      return readAppleWorkout(workoutFromElement(element));
    case 'ActivitySummary':
      return readAppleActivitySummary(element.attributes);
    default:
      return [];
  }
}

export const appleMobile: MobileHooks = {
  parseUpload: parseAppleUpload,
  exportFile: {
    format: 'apple-health',
    entry: /(^|\/)export\.xml$/,
    // Correlation children are repeated as top-level Records, so Correlations are not read.
    elements: ['Record', 'Workout', 'ActivitySummary'],
    // One route file per workout in a real export; a few references to one file are tolerated.
    references: {
      element: 'FileReference',
      attribute: 'path',
      maxBytes: 32 * 1024 * 1024,
      maxReferences: 4,
      read: readRoute,
    },
    fromElement: fromExportElement,
  },
};

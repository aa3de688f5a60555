// HealthKit workouts: type, totals, per-type statistics (newer exports) and route points.
import { ActivityType } from '../../model/activity-type-codes.ts';
import {
  type MobileSample,
  numberOf,
  optionalString,
  parsePlatformTime,
  type RoutePoint,
} from '../../provider-kit/mobile/samples.ts';
import { commonSportNames, sportKey } from '../../provider-kit/normalize/sport-names.ts';
import { Q } from './record-types.ts';
import { idOf, span } from './sample-fields.ts';
import { sourceOf } from './sources.ts';
import { convert, ENERGY_KCAL, LENGTH_M, PER_MINUTE } from './units.ts';

type Json = Record<string, unknown>;

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

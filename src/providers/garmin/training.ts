// Garmin Training API: Tributary's planned workouts become Garmin workouts, scheduled on the
// user's Garmin Connect calendar (and so synced to the watch), and are deleted there again.
// Garmin's reference is partner-gated; the shapes below follow the public programme page
// (…/training-api/: "planned workouts and schedules pushed to devices") and public client code
// [C/?] (MAPPING.md "Planned workouts"). The user must have granted WORKOUT_IMPORT.
//
// The unified body arrives with enumerations by name (SDK) or by number (docs): `nameOf` reads
// either. Garmin reads back only what this app scheduled (its schedules by date, then each
// workout): those are listed as the provider's planned workouts.
import type { TypeFetcher } from '../../provider-kit/api.ts';
import type { DataSource, DataSourceUser } from '../../provider-kit/data-source.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import { activityTypeName } from '../../model/activity-type.ts';
import type {
  PlannedWorkoutDetails,
  PlannedWorkoutStep,
  PlannedWorkoutSteps,
} from '../../model/planned-workout.ts';
import {
  plannedWorkoutDurationTypes,
  plannedWorkoutIntensities,
  plannedWorkoutStepKinds,
  plannedWorkoutTargetTypes,
  swimEquipmentTypes,
  swimStrokeTypes,
  exerciseCategories,
} from '../../model/planned-workout-enums.ts';
import { addDays } from '../../model/time.ts';

export const GARMIN_TRAINING_API = 'https://apis.garmin.com/training-api';
/** The Garmin permission that lets a partner import workouts into a user's account. */
export const WORKOUT_IMPORT = 'WORKOUT_IMPORT';

type Json = Record<string, unknown>;
type Duration = NonNullable<PlannedWorkoutStep['durations']>[number];
type Target = NonNullable<PlannedWorkoutStep['targets']>[number];

/** A name of `names` given by name (any case) or by its number; otherwise null. */
function nameOf<const N extends readonly string[]>(names: N, value: unknown): N[number] | null {
  if (typeof value === 'number') return Number.isInteger(value) ? (names[value] ?? null) : null;
  if (typeof value !== 'string') return null;
  const upper = value.toUpperCase();
  return names.find((name) => name.toUpperCase() === upper) ?? null;
}
const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

// --- unified -> Garmin ---------------------------------------------------------------------

/** Garmin's workout sports; everything else is GENERIC. */
export function garminSportOf(type: unknown): string {
  const name = typeof type === 'number' ? (activityTypeName(type) ?? '') : String(type ?? '').toUpperCase();
  if (/SWIM/.test(name)) return 'LAP_SWIMMING';
  if (/BIK|CYCL/.test(name)) return 'CYCLING';
  if (/RUN/.test(name)) return 'RUNNING';
  if (/STRENGTH/.test(name)) return 'STRENGTH_TRAINING';
  if (/YOGA/.test(name)) return 'YOGA';
  if (/PILATES/.test(name)) return 'PILATES';
  if (/CARDIO|HIIT|ELLIPTICAL|ROWING/.test(name)) return 'CARDIO_TRAINING';
  return 'GENERIC';
}

const STROKES: Readonly<Record<string, string>> = {
  FREESTYLE: 'FREESTYLE',
  BACKSTROKE: 'BACKSTROKE',
  BREASTSTROKE: 'BREASTSTROKE',
  BUTTERFLY: 'BUTTERFLY',
  OTHER: 'MIXED',
};
const EQUIPMENT: Readonly<Record<string, string>> = {
  NONE: 'NONE',
  SWIM_FINS: 'SWIM_FINS',
  SWIM_KICKBOARD: 'SWIM_KICKBOARD',
  SWIM_PADDLES: 'SWIM_PADDLES',
  SWIM_PULL_BUOY: 'SWIM_PULLBUOY',
  SWIM_SNORKEL: 'SWIM_SNORKEL',
};

/** How long a step lasts, as Garmin says it; a kind Garmin has no word for is OPEN (lap button). */
function garminDuration(duration: Duration | undefined): Json {
  if (!duration) return { durationType: 'OPEN' };
  const kind = nameOf(plannedWorkoutDurationTypes, duration.duration_type);
  const value = (type: string, amount: unknown, unit?: string) =>
    num(amount) === null
      ? { durationType: 'OPEN' }
      : { durationType: type, durationValue: num(amount), ...(unit ? { durationValueType: unit } : {}) };
  switch (kind) {
    case 'TIME':
      return value('TIME', duration.seconds);
    case 'DISTANCE_METERS':
      return value('DISTANCE', duration.distance_meters, 'METER');
    case 'HR_LESS_THAN':
      return value('HR_LESS_THAN', duration.hr_below_bpm);
    case 'HR_GREATER_THAN':
      return value('HR_GREATER_THAN', duration.hr_above_bpm);
    case 'CALORIES':
      return value('CALORIES', duration.calories);
    case 'POWER_LESS_THAN':
      return value('POWER_LESS_THAN', duration.power_below_watts);
    case 'POWER_GREATER_THAN':
      return value('POWER_GREATER_THAN', duration.power_above_watts);
    case 'REPS':
      return value('REPS', duration.reps);
    case 'FIXED_REST':
      return value('FIXED_REST', duration.rest_seconds);
    default:
      return { durationType: 'OPEN' };
  }
}

/** A range, or one value as a range of itself. */
const range = (low: unknown, high: unknown, one?: unknown) => {
  const lo = num(low) ?? num(one);
  const hi = num(high) ?? num(one);
  return lo === null && hi === null ? null : { low: lo ?? hi, high: hi ?? lo };
};

/** A step's target (`secondary` for the second one); targets Garmin has no word for are dropped. */
function garminTarget(target: Target | undefined, secondary = false): Json {
  const key = (name: string) => (secondary ? `secondary${name[0]!.toUpperCase()}${name.slice(1)}` : name);
  const out = (type: string, span: { low: number | null; high: number | null } | null, unit?: string) =>
    span === null
      ? {}
      : {
          [key('targetType')]: type,
          [key('targetValueLow')]: span.low,
          [key('targetValueHigh')]: span.high,
          ...(unit ? { [key('targetValueType')]: unit } : {}),
        };
  if (!target) return secondary ? {} : { targetType: 'OPEN' };
  const t = target;
  switch (nameOf(plannedWorkoutTargetTypes, t.target_type)) {
    case 'HEART_RATE':
      return (
        pick(out('HEART_RATE', range(t.hr_bpm_low, t.hr_bpm_high))) ??
        out('HEART_RATE', range(t.hr_percentage_low, t.hr_percentage_high, t.hr_percentage), 'PERCENT')
      );
    case 'HEART_RATE_MAX_PERCENTAGE':
    case 'HEART_RATE_THRESHOLD_PERCENTAGE':
      return out('HEART_RATE', range(t.hr_percentage_low, t.hr_percentage_high, t.hr_percentage), 'PERCENT');
    case 'POWER':
      return (
        pick(out('POWER', range(t.power_watt_low, t.power_watt_high, t.power_watt))) ??
        out('POWER', range(t.power_percentage_low, t.power_percentage_high, t.power_percentage), 'PERCENT')
      );
    case 'POWER_PERCENTAGE':
      return out(
        'POWER',
        range(t.power_percentage_low, t.power_percentage_high, t.power_percentage),
        'PERCENT',
      );
    case 'SPEED':
      return out('SPEED', range(null, null, t.speed_meters_per_second));
    case 'PACE': {
      // Garmin states a pace target as speed (m/s); minutes per km -> m/s.
      const pace = num(t.pace_minutes_per_kilometer);
      return pace && pace > 0 ? out('PACE', range(null, null, 1000 / (pace * 60))) : {};
    }
    case 'CADENCE':
      return out('CADENCE', range(t.cadence_low, t.cadence_high, t.cadence));
    default:
      return secondary ? {} : { targetType: 'OPEN' };
  }
}
const pick = (value: Json) => (Object.keys(value).length > 0 ? value : null);

const isRepeat = (step: PlannedWorkoutSteps) =>
  nameOf(plannedWorkoutStepKinds, step.type) === 'PlannedWorkoutRepeatStep' ||
  nameOf(plannedWorkoutStepKinds, step.type) === 'REPEAT_STEP';

/** The steps in their `order`, then as posted. */
const ordered = <S extends { order?: number | null }>(steps: readonly S[]) =>
  steps
    .map((step, index) => ({ step, index }))
    .sort((a, b) => (a.step.order ?? a.index) - (b.step.order ?? b.index) || a.index - b.index)
    .map(({ step }) => step);

function garminStep(step: PlannedWorkoutStep, stepOrder: number): Json {
  const [first, second] = step.targets ?? [];
  const stroke = nameOf(swimStrokeTypes, step.stroke_type);
  const equipmentList = Array.isArray(step.equipment_type) ? step.equipment_type : [step.equipment_type];
  const equipment = nameOf(swimEquipmentTypes, equipmentList[0] ?? step.equipement_type);
  const category = nameOf(exerciseCategories, step.exercise_category ?? step.exercice_category);
  const exercise = step.exercise_name ?? step.exercice_name ?? null;
  return {
    type: 'WorkoutStep',
    stepOrder,
    intensity: nameOf(plannedWorkoutIntensities, step.intensity) ?? 'ACTIVE',
    ...(step.name || step.description ? { description: step.description ?? step.name } : {}),
    ...garminDuration(step.durations?.[0]),
    ...garminTarget(first),
    ...garminTarget(second, true),
    ...(stroke && STROKES[stroke] ? { strokeType: STROKES[stroke] } : {}),
    ...(equipment ? { equipmentType: EQUIPMENT[equipment] } : {}),
    ...(category && category !== 'UNKNOWN' ? { exerciseCategory: category } : {}),
    ...(exercise ? { exerciseName: exercise.toUpperCase().replace(/\W+/g, '_') } : {}),
    ...(num(step.weight_kg) !== null ? { weightValue: step.weight_kg, weightDisplayUnit: 'KILOGRAM' } : {}),
  };
}

/** The steps as Garmin's list: stepOrder runs through the whole workout, repeat groups included. */
function garminSteps(steps: readonly PlannedWorkoutSteps[]): Json[] {
  let next = 1;
  return ordered(steps).map((step) => {
    if (!isRepeat(step)) return garminStep(step, next++);
    const repeat = step.durations?.find(
      (d) => nameOf(plannedWorkoutDurationTypes, d.duration_type) === 'REPS',
    );
    const group: Json = {
      type: 'WorkoutRepeatStep',
      stepOrder: next++,
      repeatType: 'REPEAT_UNTIL_STEPS_CMPLT',
      repeatValue: Math.max(1, Math.round(num(repeat?.reps) ?? 1)),
    };
    group.steps = ordered(step.steps ?? []).map((child) => garminStep(child, next++));
    return group;
  });
}

/** The unified planned workout as Garmin's workout JSON (one segment). */
export function toGarminWorkout(details: PlannedWorkoutDetails): Json {
  const metadata = details.metadata ?? {};
  const sport = garminSportOf(metadata.type);
  const pool = num(metadata.pool_length_meters);
  const poolFields = sport === 'LAP_SWIMMING' && pool ? { poolLength: pool, poolLengthUnit: 'METER' } : {};
  return {
    workoutName: (metadata.name ?? 'Workout').slice(0, 80),
    ...(metadata.description ? { description: metadata.description.slice(0, 1024) } : {}),
    sport,
    workoutProvider: 'Tributary',
    workoutSourceId: 'Tributary',
    ...(num(metadata.estimated_duration_seconds) !== null
      ? { estimatedDurationInSecs: Math.round(metadata.estimated_duration_seconds!) }
      : {}),
    ...(num(metadata.estimated_distance_meters) !== null
      ? { estimatedDistanceInMeters: metadata.estimated_distance_meters }
      : {}),
    ...poolFields,
    isSessionTransitionEnabled: false,
    segments: [{ segmentOrder: 1, sport, ...poolFields, steps: garminSteps(details.steps ?? []) }],
  };
}

// --- Garmin -> unified (what this app scheduled, read back) ---------------------------------

const SPORT_TYPE: Readonly<Record<string, string>> = {
  RUNNING: 'RUNNING',
  CYCLING: 'BIKING',
  LAP_SWIMMING: 'SWIMMING',
  STRENGTH_TRAINING: 'STRENGTH_TRAINING',
  CARDIO_TRAINING: 'CARDIO_TRAINING',
  YOGA: 'YOGA',
  PILATES: 'PILATES',
};
const UNIFIED_DURATION: Readonly<Record<string, [string, string, keyof Duration]>> = {
  TIME: ['TimePlannedWorkoutStepDuration', 'TIME', 'seconds'],
  DISTANCE: ['DistancePlannedWorkoutStepDuration', 'DISTANCE_METERS', 'distance_meters'],
  HR_LESS_THAN: ['HRBelowPlannedWorkoutStepDuration', 'HR_LESS_THAN', 'hr_below_bpm'],
  HR_GREATER_THAN: ['HRAbovePlannedWorkoutStepDuration', 'HR_GREATER_THAN', 'hr_above_bpm'],
  CALORIES: ['CaloriesPlannedWorkoutStepDuration', 'CALORIES', 'calories'],
  POWER_LESS_THAN: ['PowerBelowPlannedWorkoutStepDuration', 'POWER_LESS_THAN', 'power_below_watts'],
  POWER_GREATER_THAN: ['PowerAbovePlannedWorkoutStepDuration', 'POWER_GREATER_THAN', 'power_above_watts'],
  REPS: ['RepsPlannedWorkoutStepDuration', 'REPS', 'reps'],
  FIXED_REST: ['FixedRestPlannedWorkoutStepDuration', 'FIXED_REST', 'rest_seconds'],
};

function unifiedDuration(step: Json): Duration {
  const known = UNIFIED_DURATION[String(step.durationType)];
  const value = num(step.durationValue);
  if (!known || value === null) return { type: 'PlannedWorkoutStepDuration', duration_type: 'OPEN' };
  return { type: known[0], duration_type: known[1], [known[2]]: value } as Duration;
}

function unifiedTarget(step: Json, prefix: '' | 'secondary'): Target | null {
  const field = (name: string) => step[prefix ? `secondary${name[0]!.toUpperCase()}${name.slice(1)}` : name];
  const type = field('targetType');
  const low = num(field('targetValueLow'));
  const high = num(field('targetValueHigh'));
  const percent = field('targetValueType') === 'PERCENT';
  switch (type) {
    case 'HEART_RATE':
      return percent
        ? {
            type: 'HRPlannedWorkoutStepTarget',
            target_type: 'HEART_RATE',
            hr_percentage_low: low,
            hr_percentage_high: high,
          }
        : {
            type: 'HRPlannedWorkoutStepTarget',
            target_type: 'HEART_RATE',
            hr_bpm_low: low,
            hr_bpm_high: high,
          };
    case 'POWER':
      return percent
        ? {
            type: 'PowerPlannedWorkoutStepTarget',
            target_type: 'POWER',
            power_percentage_low: low,
            power_percentage_high: high,
          }
        : {
            type: 'PowerPlannedWorkoutStepTarget',
            target_type: 'POWER',
            power_watt_low: low,
            power_watt_high: high,
          };
    case 'SPEED':
      return {
        type: 'SpeedPlannedWorkoutStepTarget',
        target_type: 'SPEED',
        speed_meters_per_second: low ?? high,
      };
    case 'PACE': {
      const speed = low ?? high;
      return speed && speed > 0
        ? {
            type: 'PacePlannedWorkoutStepTarget',
            target_type: 'PACE',
            pace_minutes_per_kilometer: Math.round((1000 / speed / 60) * 100) / 100,
          }
        : null;
    }
    case 'CADENCE':
      return {
        type: 'CadencePlannedWorkoutStepTarget',
        target_type: 'CADENCE',
        cadence_low: low,
        cadence_high: high,
      };
    default:
      return prefix ? null : { type: 'PlannedWorkoutStepTarget', target_type: 'OPEN' };
  }
}

function unifiedStep(step: Json, order: number): PlannedWorkoutStep {
  const targets = [unifiedTarget(step, ''), unifiedTarget(step, 'secondary')].filter(
    (target): target is Target => target !== null,
  );
  const stroke = Object.entries(STROKES).find(([, garmin]) => garmin === step.strokeType)?.[0];
  return {
    type: 'PlannedWorkoutStep',
    order,
    description: typeof step.description === 'string' ? step.description : null,
    intensity: nameOf(plannedWorkoutIntensities, step.intensity) ?? 'ACTIVE',
    durations: [unifiedDuration(step)],
    targets,
    ...(stroke ? { stroke_type: stroke as PlannedWorkoutStep['stroke_type'] } : {}),
    ...(typeof step.exerciseName === 'string' ? { exercise_name: step.exerciseName } : {}),
    ...(num(step.weightValue) !== null ? { weight_kg: num(step.weightValue) } : {}),
  };
}

/** A Garmin workout scheduled on `date`, as the unified body (provider id = Garmin's workoutId). */
export function fromGarminWorkout(workout: Json, date: string): PlannedWorkoutDetails {
  const segments = Array.isArray(workout.segments) ? (workout.segments as Json[]) : [];
  const steps: PlannedWorkoutSteps[] = [];
  let order = 0;
  for (const segment of segments) {
    for (const raw of Array.isArray(segment.steps) ? (segment.steps as Json[]) : []) {
      if (raw.type === 'WorkoutRepeatStep') {
        const children = Array.isArray(raw.steps) ? (raw.steps as Json[]) : [];
        steps.push({
          type: 'PlannedWorkoutRepeatStep',
          order: order++,
          durations: [
            {
              type: 'RepsPlannedWorkoutStepDuration',
              duration_type: 'REPS',
              reps: num(raw.repeatValue) ?? 1,
            },
          ],
          steps: children.map((child, index) => unifiedStep(child, index)),
        });
      } else steps.push(unifiedStep(raw, order++));
    }
  }
  return {
    metadata: {
      id: String(workout.workoutId),
      name: typeof workout.workoutName === 'string' ? workout.workoutName : null,
      description: typeof workout.description === 'string' ? workout.description : null,
      provider: 'GARMIN',
      type: (SPORT_TYPE[String(workout.sport)] ?? 'OTHER') as never,
      planned_date: `${date}T00:00:00.000000+00:00`,
      estimated_duration_seconds: num(workout.estimatedDurationInSecs),
      estimated_distance_meters: num(workout.estimatedDistanceInMeters),
      pool_length_meters: num(workout.poolLength),
    },
    steps,
  };
}

// --- the hooks ------------------------------------------------------------------------------

/** Why this user's workouts cannot go to Garmin (WORKOUT_IMPORT not granted); null when they can. */
export function garminPlanRefusal(user: DataSourceUser): string | null {
  if (user.scopes === null) return null; // not known yet: Garmin answers 403 if it is missing
  const granted = user.scopes.split(/[\s,]+/);
  return granted.includes(WORKOUT_IMPORT)
    ? null
    : `the user has not granted Garmin's ${WORKOUT_IMPORT} permission (Training API)`;
}

type Hooks = Required<
  Pick<DataSource, 'writePlannedWorkouts' | 'deletePlannedWorkouts' | 'plannedWorkoutRefusal'>
>;

export const garminPlannedWorkouts: Hooks = {
  plannedWorkoutRefusal: garminPlanRefusal,

  async writePlannedWorkouts({ http, workouts }) {
    if (!http) throw new ProviderDataError('unavailable', 'no provider HTTP client in this context');
    const ids: string[] = [];
    for (const details of workouts) {
      const created = await http.json<{ workoutId?: unknown }>({
        method: 'POST',
        url: `${GARMIN_TRAINING_API}/workout`,
        json: toGarminWorkout(details),
      });
      const workoutId = created?.workoutId;
      if (typeof workoutId !== 'number' && typeof workoutId !== 'string')
        throw new ProviderDataError('unavailable', 'Garmin created a workout without a workoutId');
      const date = details.metadata?.planned_date?.slice(0, 10);
      if (date) {
        try {
          await http.json({
            method: 'POST',
            url: `${GARMIN_TRAINING_API}/schedule`,
            json: { workoutId, date },
          });
        } catch (error) {
          // An unscheduled workout would sit in the user's library unseen: take it back.
          await http
            .json({ method: 'DELETE', url: `${GARMIN_TRAINING_API}/workout/${workoutId}`, absentOn: [404] })
            .catch(() => undefined);
          throw error;
        }
      }
      ids.push(String(workoutId));
    }
    return ids;
  },

  async deletePlannedWorkouts({ http, ids }) {
    if (!http) throw new ProviderDataError('unavailable', 'no provider HTTP client in this context');
    const outcomes: { id: string; deleted: boolean }[] = [];
    for (const id of ids) {
      if (!/^\d+$/.test(id)) {
        outcomes.push({ id, deleted: false });
        continue;
      }
      // Deleting the workout removes its schedules; already gone (404) is deleted too.
      await http.json({ method: 'DELETE', url: `${GARMIN_TRAINING_API}/workout/${id}`, absentOn: [404] });
      outcomes.push({ id, deleted: true });
    }
    return outcomes;
  },
};

/** What this app scheduled on the user's Garmin calendar in [startDate, endDate). */
export const garminPlannedWorkoutFetcher: TypeFetcher = async function* (args) {
  const schedules = await args.http.json({
    url: `${GARMIN_TRAINING_API}/schedule`,
    query: { startDate: args.startDate, endDate: addDays(args.endDate, -1) },
    absentOn: [404],
  });
  if (schedules === null) return;
  if (!Array.isArray(schedules))
    throw new ProviderDataError('unavailable', 'Garmin schedules answered something other than a list');
  const records: PlannedWorkoutDetails[] = [];
  for (const schedule of schedules as Json[]) {
    const workoutId = schedule?.workoutId;
    const date = typeof schedule?.date === 'string' ? schedule.date : null;
    if ((typeof workoutId !== 'number' && typeof workoutId !== 'string') || !date) continue;
    if (date < args.startDate || date >= args.endDate) continue;
    const workout = await args.http.json<Json>({
      url: `${GARMIN_TRAINING_API}/workout/${workoutId}`,
      absentOn: [404],
    });
    if (workout && typeof workout === 'object') records.push(fromGarminWorkout(workout, date));
  }
  yield { records, raw: schedules };
};

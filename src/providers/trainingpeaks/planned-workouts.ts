// TrainingPeaks planned workouts (wiki "Workouts Create", "Workouts Object", "Premium vs Basic
// Athlete"): POST /v2/workouts/plan with AthleteId, WorkoutDay (a date; any time is ignored; at
// most 7 days back and a year ahead), WorkoutType (swim, bike, run, x-train, mtb, strength,
// xc-ski, rowing, walk, other), Title, Description, TotalTimePlanned (decimal hours),
// DistancePlanned (m), TSSPlanned, IFPlanned, CaloriesPlanned, EnergyPlanned (kJ) and Structure
// (a JSON string). DELETE /v2/workouts/id/{id} removes one (scope workouts:plan). A basic
// athlete may not be given future workouts (403). Reading back: the workouts of
// GET /v2/workouts/{start}/{end} that are not completed; their Structure is not returned on GET.
//
// Structure: only what the wiki's example shows is written: steps `{Type: "Step", Name,
// IntensityClass, Length: {Unit: "Second", Value}}`, repeats `{Type: "Repetition", Length: {Unit:
// "Repetition", Value}, Steps}`, and `CadenceTarget {Unit: "rpm", MinValue, MaxValue}`.
// IntensityClass "WarmUp" and "Active" appear there; "Rest" and "CoolDown" are the obvious
// names for the others but are not in the example [unconfirmed]. The only intensity target the
// wiki shows (Workouts Update) is `IntensityTarget {Unit: "PercentOfThresholdHr"}`: a
// HEART_RATE_THRESHOLD_PERCENTAGE target is written so. Other heart-rate targets (of maximum heart
// rate, in bpm), power targets, distance steps and other durations are refused with a 400 naming
// the step rather than written under a guessed unit.
import { badRequest } from '../../core/errors.ts';
import type { TypeFetcher } from '../../provider-kit/api.ts';
import type { DataSource, DataSourceUser } from '../../provider-kit/data-source.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import { dayChunks } from '../../provider-kit/pagination.ts';
import { activityTypeName } from '../../model/activity-type.ts';
import {
  plannedWorkoutDurationTypes,
  plannedWorkoutIntensities,
  plannedWorkoutStepKinds,
  plannedWorkoutTargetTypes,
} from '../../model/planned-workout-enums.ts';
import type { PlannedWorkoutDetails, PlannedWorkoutSteps } from '../../model/planned-workout.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import { TRAININGPEAKS_API, TRAININGPEAKS_CHUNK_DAYS } from './api-base.ts';
import { isCompleted } from './normalize/workout.ts';
import type { TpWorkout } from './normalize/types.ts';

export const WORKOUTS_PLAN = 'workouts:plan';

export function tpPlanRefusal(user: DataSourceUser): string | null {
  if (user.scopes === null) return null;
  return user.scopes.split(/[\s,]+/).includes(WORKOUTS_PLAN)
    ? null
    : `the user has not granted TrainingPeaks' ${WORKOUTS_PLAN} scope`;
}

function nameOf<const N extends readonly string[]>(names: N, value: unknown): N[number] | null {
  if (typeof value === 'number') return Number.isInteger(value) ? (names[value] ?? null) : null;
  if (typeof value !== 'string') return null;
  const upper = value.toUpperCase();
  return names.find((name) => name.toUpperCase() === upper) ?? null;
}

/** TrainingPeaks' WorkoutType for a unified type (by name or code). */
export function tpWorkoutTypeOf(type: unknown): string {
  const name = typeof type === 'number' ? (activityTypeName(type) ?? '') : String(type ?? '').toUpperCase();
  if (/SWIM/.test(name)) return 'swim';
  if (/MOUNTAIN/.test(name)) return 'mtb';
  if (/BIK|CYCL/.test(name)) return 'bike';
  if (/RUN/.test(name)) return 'run';
  if (/WALK/.test(name)) return 'walk';
  if (/CROSS_COUNTRY_SKI/.test(name)) return 'xc-ski';
  if (/ROWING/.test(name)) return 'rowing';
  if (/STRENGTH/.test(name)) return 'strength';
  return 'other';
}

const UNIFIED_TYPE: Readonly<Record<string, string>> = {
  swim: 'SWIMMING',
  bike: 'BIKING',
  run: 'RUNNING',
  walk: 'WALKING',
  mtb: 'MOUNTAIN_BIKING',
  'xc-ski': 'CROSS_COUNTRY_SKIING',
  rowing: 'ROWING',
  strength: 'STRENGTH_TRAINING',
  brick: 'MULTISPORT',
};

const INTENSITY_CLASS: Readonly<Record<string, string>> = {
  WARMUP: 'WarmUp',
  COOLDOWN: 'CoolDown',
  REST: 'Rest',
  RECOVERY: 'Rest',
};

type Step = PlannedWorkoutSteps;
type Target = NonNullable<Step['targets']>[number];

/**
 * The wiki's one intensity target (Workouts Update example): `{Unit: "PercentOfThresholdHr",
 * Value, MinValue, MaxValue}` for a band (Value its middle, as in the example's 70-80 → 75), or
 * `{Unit, Value}` for one number. Null when the target names no percentage.
 */
function thresholdHrTarget(target: Target): Record<string, unknown> | null {
  const low = target.hr_percentage_low;
  const high = target.hr_percentage_high;
  if (typeof low === 'number' && typeof high === 'number')
    return { Unit: 'PercentOfThresholdHr', Value: (low + high) / 2, MinValue: low, MaxValue: high };
  const one = target.hr_percentage ?? low ?? high;
  return typeof one === 'number' ? { Unit: 'PercentOfThresholdHr', Value: one } : null;
}
const isRepeat = (step: Step) =>
  ['PlannedWorkoutRepeatStep', 'REPEAT_STEP'].includes(nameOf(plannedWorkoutStepKinds, step.type) ?? '') ||
  Array.isArray(step.steps);

function tpStep(step: Step, where: string): Record<string, unknown> {
  const label = step.name ? `${where} ("${step.name}")` : where;
  const duration = (step.durations ?? [])[0];
  const kind = nameOf(plannedWorkoutDurationTypes, duration?.duration_type);
  const seconds = duration?.seconds ?? duration?.rest_seconds;
  if (!((kind === 'TIME' || kind === 'FIXED_REST') && typeof seconds === 'number' && seconds > 0))
    throw badRequest(
      `${label}: only timed steps are written to TrainingPeaks; ${String(kind ?? 'no duration')} is not`,
    );
  const out: Record<string, unknown> = {
    Type: 'Step',
    ...(step.name ? { Name: step.name } : {}),
    IntensityClass: INTENSITY_CLASS[nameOf(plannedWorkoutIntensities, step.intensity) ?? ''] ?? 'Active',
    Length: { Unit: 'Second', Value: Math.round(seconds) },
  };
  for (const target of step.targets ?? []) {
    const targetKind = nameOf(plannedWorkoutTargetTypes, target.target_type);
    if (targetKind === null || targetKind === 'OPEN') continue;
    if (targetKind === 'CADENCE') {
      const low = target.cadence_low ?? target.cadence;
      const high = target.cadence_high ?? target.cadence;
      if (typeof low === 'number' && typeof high === 'number') {
        out.CadenceTarget = { Unit: 'rpm', MinValue: low, MaxValue: high };
        continue;
      }
    }
    if (targetKind === 'HEART_RATE_THRESHOLD_PERCENTAGE') {
      const intensity = thresholdHrTarget(target);
      if (intensity) {
        out.IntensityTarget = intensity;
        continue;
      }
    }
    throw badRequest(`${label}: a ${targetKind} target has no documented TrainingPeaks form`);
  }
  return out;
}

/** The Structure steps for a planned workout (repeats one level deep). */
export function tpStructure(steps: readonly Step[]): Record<string, unknown>[] {
  return steps.map((step, index) => {
    const where = `steps[${index}]`;
    if (!isRepeat(step)) return tpStep(step, where);
    const reps = (step.durations ?? []).find(
      (duration) => nameOf(plannedWorkoutDurationTypes, duration.duration_type) === 'REPS',
    )?.reps;
    if (typeof reps !== 'number' || !Number.isInteger(reps) || reps < 1)
      throw badRequest(`${where}: a repeat step needs a REPS duration with a whole count`);
    return {
      Type: 'Repetition',
      Length: { Unit: 'Repetition', Value: reps },
      Steps: (step.steps ?? []).map((child, childIndex) => {
        if (isRepeat(child))
          throw badRequest(`${where}.steps[${childIndex}]: repeats inside repeats are not written`);
        return tpStep(child, `${where}.steps[${childIndex}]`);
      }),
    };
  });
}

const positive = (value: number | null | undefined) =>
  typeof value === 'number' && value > 0 ? value : null;

export function toTpWorkout(
  details: PlannedWorkoutDetails,
  athleteId: number,
  today: string,
): Record<string, unknown> {
  const metadata = details.metadata ?? {};
  const date = metadata.planned_date?.slice(0, 10);
  if (!date || !isIsoDate(date))
    throw badRequest('metadata.planned_date: TrainingPeaks files a workout under its day');
  if (date < addDays(today, -7) || date > addDays(today, 365))
    throw badRequest(
      `metadata.planned_date ${date}: TrainingPeaks takes workout days from 7 days ago to a year ahead`,
    );
  const steps = details.steps ?? [];
  const hours = positive(metadata.estimated_duration_seconds);
  const fields: Record<string, unknown> = {
    AthleteId: athleteId,
    WorkoutDay: date,
    WorkoutType: tpWorkoutTypeOf(metadata.type),
    Title: metadata.name ?? 'Planned workout',
    ...(metadata.description ? { Description: metadata.description } : {}),
    ...(hours ? { TotalTimePlanned: Math.round((hours / 3600) * 10_000) / 10_000 } : {}),
    ...(positive(metadata.estimated_distance_meters)
      ? { DistancePlanned: metadata.estimated_distance_meters }
      : {}),
    ...(positive(metadata.estimated_tss) ? { TSSPlanned: metadata.estimated_tss } : {}),
    ...(positive(metadata.estimated_if) ? { IFPlanned: metadata.estimated_if } : {}),
    ...(positive(metadata.estimated_calories) ? { CaloriesPlanned: metadata.estimated_calories } : {}),
    ...(positive(metadata.estimated_energy_kj) ? { EnergyPlanned: metadata.estimated_energy_kj } : {}),
    ...(positive(metadata.estimated_elevation_gain_meters)
      ? { ElevationGainPlanned: metadata.estimated_elevation_gain_meters }
      : {}),
  };
  if (steps.length > 0) fields.Structure = JSON.stringify(tpStructure(steps));
  return fields;
}

export function fromTpWorkout(workout: TpWorkout): PlannedWorkoutDetails {
  const date = workout.WorkoutDay.slice(0, 10);
  const hours = positive(workout.TotalTimePlanned);
  return {
    metadata: {
      id: String(workout.Id),
      name: workout.Title ?? null,
      description: workout.Description ?? null,
      provider: 'TRAININGPEAKS',
      type: (UNIFIED_TYPE[(workout.WorkoutType ?? '').toLowerCase()] ?? 'OTHER') as never,
      planned_date: `${date}T00:00:00.000000+00:00`,
      estimated_duration_seconds: hours === null ? null : Math.round(hours * 3600),
      estimated_distance_meters: positive(workout.DistancePlanned),
      estimated_tss: positive(workout.TssPlanned),
      estimated_if: positive(workout.IFPlanned),
      estimated_calories: positive(workout.CaloriesPlanned),
      estimated_energy_kj: positive(workout.EnergyPlanned),
      estimated_elevation_gain_meters: positive(workout.ElevationGainPlanned),
    },
    // Structure is not returned on GET (wiki "Workouts Object").
    steps: [],
  };
}

type Hooks = Required<
  Pick<DataSource, 'writePlannedWorkouts' | 'deletePlannedWorkouts' | 'plannedWorkoutRefusal'>
>;

export const tpPlannedWorkouts: Hooks = {
  plannedWorkoutRefusal: tpPlanRefusal,

  async writePlannedWorkouts({ http, user, workouts, runtime }) {
    if (!http) throw new ProviderDataError('unavailable', 'no provider HTTP client in this context');
    const athleteId = Number(user.providerUserId);
    if (!Number.isInteger(athleteId))
      throw new ProviderDataError('unavailable', 'no TrainingPeaks athlete id for this user');
    const today = runtime.clock.now().toISOString().slice(0, 10);
    const bodies = workouts.map((details) => toTpWorkout(details, athleteId, today));
    const ids: string[] = [];
    for (const body of bodies) {
      const created = await http.json<{ Id?: unknown }>({
        method: 'POST',
        url: `${TRAININGPEAKS_API}/v2/workouts/plan`,
        json: body,
      });
      if (typeof created?.Id !== 'number' && typeof created?.Id !== 'string')
        throw new ProviderDataError('unavailable', 'TrainingPeaks created a workout without an Id');
      ids.push(String(created.Id));
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
      await http.json({
        method: 'DELETE',
        url: `${TRAININGPEAKS_API}/v2/workouts/id/${id}`,
        absentOn: [404],
      });
      outcomes.push({ id, deleted: true });
    }
    return outcomes;
  },
};

/** Planned (not completed) workouts on days [startDate, endDate). */
export const tpPlannedWorkoutFetcher: TypeFetcher = async function* (args) {
  // Any window, past or future, read in the same day ranges as completed workouts.
  for (const range of dayChunks(args.startDate, args.endDate, TRAININGPEAKS_CHUNK_DAYS)) {
    const list = await args.http.json<TpWorkout[]>({
      url: `${TRAININGPEAKS_API}/v2/workouts/${range.startDate}/${addDays(range.endDate, -1)}`,
      query: { includeDescription: 'true' },
    });
    const workouts = Array.isArray(list) ? list : [];
    const records = workouts
      .filter((workout) => typeof workout?.Id === 'number' && typeof workout.WorkoutDay === 'string')
      .filter((workout) => !isCompleted(workout) && (workout.WorkoutType ?? '').toLowerCase() !== 'day off')
      .filter((workout) => {
        const date = workout.WorkoutDay.slice(0, 10);
        return date >= range.startDate && date < range.endDate;
      })
      .map(fromTpWorkout);
    yield { records, raw: list };
  }
};

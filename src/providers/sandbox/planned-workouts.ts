// Planned workouts: structured sessions a coach app might push, on about two days in five.
// Shapes follow the SDK (step kinds, duration and target kinds by name).
import type {
  PlannedWorkoutDetails,
  PlannedWorkoutStep,
  PlannedWorkoutSteps,
} from '../../model/planned-workout.ts';
import { type DayContext, MINUTE_MS } from './context.ts';
import { Random, stableUuid } from './random.ts';
import { round } from './series.ts';

type Duration = NonNullable<PlannedWorkoutStep['durations']>[number];
type Target = NonNullable<PlannedWorkoutStep['targets']>[number];

const seconds = (value: number): Duration => ({
  type: 'TimePlannedWorkoutStepDuration',
  duration_type: 'TIME',
  seconds: value,
});
const meters = (value: number): Duration => ({
  type: 'DistancePlannedWorkoutStepDuration',
  duration_type: 'DISTANCE_METERS',
  distance_meters: value,
});
const repetitions = (value: number): Duration => ({
  type: 'RepsPlannedWorkoutStepDuration',
  duration_type: 'REPS',
  reps: value,
});
const restFor = (value: number): Duration => ({
  type: 'FixedRestPlannedWorkoutStepDuration',
  duration_type: 'FIXED_REST',
  rest_seconds: value,
});
const heartRate = (low: number, high: number): Target => ({
  type: 'HRPlannedWorkoutStepTarget',
  target_type: 'HEART_RATE',
  hr_bpm_low: low,
  hr_bpm_high: high,
});
const pace = (minutesPerKm: number): Target => ({
  type: 'PacePlannedWorkoutStepTarget',
  target_type: 'PACE',
  pace_minutes_per_kilometer: minutesPerKm,
});
const power = (low: number, high: number): Target => ({
  type: 'PowerPlannedWorkoutStepTarget',
  target_type: 'POWER',
  power_watt_low: low,
  power_watt_high: high,
});
const open: Target = { type: 'PlannedWorkoutStepTarget', target_type: 'OPEN' };

interface Plan {
  activity: 'RUNNING' | 'ROAD_BIKING' | 'SWIMMING' | 'STRENGTH_TRAINING';
  name: string;
  steps: PlannedWorkoutSteps[];
  durationSeconds: number;
  distanceMeters: number | null;
  /** Mean MET, for the calorie estimate. */
  met: number;
}

function runPlan(context: DayContext, random: Random): Plan {
  const { profile } = context;
  const repeats = random.int(4, 6);
  const workMinutes = random.int(3, 5);
  const thresholdPace = round(1000 / 60 / (profile.runSpeed * 1.25), 2);
  const zone2 = [Math.round(profile.maxHr * 0.65), Math.round(profile.maxHr * 0.75)] as const;
  const step = (
    order: number,
    name: string,
    intensity: PlannedWorkoutStep['intensity'],
    time: number,
    target: Target,
  ) => ({
    type: 'RunningPlannedWorkoutStep' as const,
    order,
    name,
    intensity,
    durations: [seconds(time)],
    targets: [target],
  });
  const durationSeconds = 600 + repeats * (workMinutes * 60 + 120) + 600;
  return {
    activity: 'RUNNING',
    name: `Intervals ${repeats}×${workMinutes} min`,
    steps: [
      step(1, 'Warm up', 'WARMUP', 600, heartRate(zone2[0], zone2[1])),
      {
        type: 'PlannedWorkoutRepeatStep',
        order: 2,
        name: 'Intervals',
        intensity: 'INTERVAL',
        durations: [repetitions(repeats)],
        targets: [],
        steps: [
          step(1, 'Hard', 'INTERVAL', workMinutes * 60, pace(thresholdPace)),
          step(2, 'Easy', 'RECOVERY', 120, open),
        ],
      },
      step(3, 'Cool down', 'COOLDOWN', 600, heartRate(zone2[0] - 10, zone2[1] - 10)),
    ],
    durationSeconds,
    distanceMeters: Math.round(durationSeconds * profile.runSpeed * 1.05),
    met: 9,
  };
}

function ridePlan(context: DayContext, random: Random): Plan {
  const ftp = context.profile.ftpWatts;
  const repeats = random.int(2, 4);
  const step = (
    order: number,
    name: string,
    intensity: PlannedWorkoutStep['intensity'],
    time: number,
    target: Target,
  ) => ({
    type: 'CyclingPlannedWorkoutStep' as const,
    order,
    name,
    intensity,
    durations: [seconds(time)],
    targets: [target],
  });
  const durationSeconds = 900 + repeats * 900 + 600;
  return {
    activity: 'ROAD_BIKING',
    name: `Sweet spot ${repeats}×10 min`,
    steps: [
      step(1, 'Warm up', 'WARMUP', 900, power(Math.round(ftp * 0.5), Math.round(ftp * 0.65))),
      {
        type: 'PlannedWorkoutRepeatStep',
        order: 2,
        name: 'Sweet spot',
        intensity: 'INTERVAL',
        durations: [repetitions(repeats)],
        targets: [],
        steps: [
          step(1, 'On', 'INTERVAL', 600, power(Math.round(ftp * 0.88), Math.round(ftp * 0.94))),
          step(2, 'Off', 'RECOVERY', 300, power(Math.round(ftp * 0.45), Math.round(ftp * 0.55))),
        ],
      },
      step(3, 'Cool down', 'COOLDOWN', 600, power(Math.round(ftp * 0.4), Math.round(ftp * 0.55))),
    ],
    durationSeconds,
    distanceMeters: Math.round(durationSeconds * 7.5),
    met: 8,
  };
}

function swimPlan(random: Random): Plan {
  const repeats = random.int(6, 10);
  const swim = (
    order: number,
    name: string,
    intensity: PlannedWorkoutStep['intensity'],
    distance: number,
  ) => ({
    type: 'SwimmingPlannedWorkoutStep' as const,
    order,
    name,
    intensity,
    durations: [meters(distance)],
    targets: [],
    stroke_type: 'FREESTYLE' as const,
    equipment_type: 'NONE' as const,
  });
  const distanceMeters = 200 + repeats * 100 + 200;
  return {
    activity: 'SWIMMING',
    name: `${repeats}×100 m freestyle`,
    steps: [
      swim(1, 'Warm up', 'WARMUP', 200),
      {
        type: 'PlannedWorkoutRepeatStep',
        order: 2,
        name: 'Main set',
        intensity: 'INTERVAL',
        durations: [repetitions(repeats)],
        targets: [],
        steps: [
          swim(1, '100 m', 'INTERVAL', 100),
          { ...swim(2, 'Rest', 'REST', 0), durations: [restFor(20)], stroke_type: 'REST' as const },
        ],
      },
      swim(3, 'Cool down', 'COOLDOWN', 200),
    ],
    durationSeconds: Math.round(distanceMeters / 1.05 + repeats * 20),
    distanceMeters,
    met: 7,
  };
}

const LIFTS = [
  ['SQUAT', 'Back squat', 0.6],
  ['DEADLIFT', 'Romanian deadlift', 0.7],
  ['BENCH_PRESS', 'Bench press', 0.4],
  ['ROW', 'Bent-over row', 0.45],
] as const;

function strengthPlan(context: DayContext, random: Random): Plan {
  const sets = 3;
  const steps: PlannedWorkoutSteps[] = LIFTS.map(([category, name, share], index) => ({
    type: 'PlannedWorkoutRepeatStep',
    order: index + 1,
    name,
    intensity: 'ACTIVE',
    durations: [repetitions(sets)],
    targets: [],
    steps: [
      {
        type: 'StrengthPlannedWorkoutStep',
        order: 1,
        name,
        intensity: 'ACTIVE',
        durations: [repetitions(random.int(6, 10))],
        targets: [],
        exercise_name: name,
        exercise_category: category,
        weight_kg: round(context.profile.baseWeightKg * share, 1),
      },
      {
        type: 'StrengthPlannedWorkoutStep',
        order: 2,
        name: 'Rest',
        intensity: 'REST',
        durations: [restFor(90)],
        targets: [],
      },
    ],
  }));
  return {
    activity: 'STRENGTH_TRAINING',
    name: 'Full-body strength',
    steps,
    durationSeconds: LIFTS.length * sets * 135,
    distanceMeters: null,
    met: 5,
  };
}

export function generatePlannedWorkouts(context: DayContext): PlannedWorkoutDetails[] {
  const random = new Random(context.seed, context.date, 'planned-workout');
  if (!random.chance(0.4)) return [];
  const kind = random.weighted([
    ['run', 4],
    ['ride', 2],
    ['swim', 1],
    ['strength', 2],
  ] as const);
  const plan =
    kind === 'run'
      ? runPlan(context, random)
      : kind === 'ride'
        ? ridePlan(context, random)
        : kind === 'swim'
          ? swimPlan(random)
          : strengthPlan(context, random);
  const calories = Math.round(
    ((plan.met * 3.5 * context.profile.baseWeightKg) / 200) * (plan.durationSeconds / 60),
  );
  const speed = plan.distanceMeters ? round(plan.distanceMeters / plan.durationSeconds, 2) : null;
  return [
    {
      metadata: {
        id: stableUuid(context.seed, 'plannedWorkout', context.date),
        name: plan.name,
        description: 'Generated by the Tributary sandbox',
        provider: 'SANDBOX',
        type: plan.activity,
        created_date: context.time(context.startMs - 3 * 86_400_000 + 19 * 60 * MINUTE_MS),
        planned_date: context.time(context.startMs),
        estimated_duration_seconds: plan.durationSeconds,
        estimated_distance_meters: plan.distanceMeters,
        estimated_calories: calories,
        estimated_energy_kj: round(calories * 4.184, 2),
        estimated_elevation_gain_meters: null,
        estimated_speed_meters_per_second: speed,
        estimated_pace_minutes_per_kilometer: speed ? round(1000 / 60 / speed, 2) : null,
        estimated_tss: round((plan.durationSeconds / 3600) * (plan.met / 10) ** 2 * 100, 1),
        estimated_tscore: null,
        estimated_if: round(plan.met / 10, 2),
        pool_length_meters: plan.activity === 'SWIMMING' ? 25 : null,
      },
      steps: plan.steps,
    },
  ];
}

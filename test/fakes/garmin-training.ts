import type { FakeReply, FakeRequest, Route } from './fake-server.ts';

/**
 * Garmin's Training API in the fake (MAPPING.md "Planned workouts"): workouts created for a
 * user who granted WORKOUT_IMPORT, validated the way Garmin's import does (known sport,
 * intensities, duration and target types, step orders running 1..n through the whole workout,
 * repeat groups of plain steps with a repeat count), scheduled on dates, read back, and deleted
 * with their schedules. `seed` holds workouts this partner app scheduled before the test began.
 */
export type TrainingWorkout = Record<string, unknown> & { workoutId: number };
export type TrainingSchedule = { scheduleId: number; workoutId: number; date: string };
export type TrainingAccount = {
  workouts: Map<number, TrainingWorkout>;
  schedules: TrainingSchedule[];
};
type Auth = { account: { registered: boolean; permissions: Set<string>; training: TrainingAccount } };

const SPORTS = new Set([
  'RUNNING',
  'CYCLING',
  'LAP_SWIMMING',
  'STRENGTH_TRAINING',
  'CARDIO_TRAINING',
  'GENERIC',
  'YOGA',
  'PILATES',
]);
const INTENSITIES = new Set(['REST', 'WARMUP', 'COOLDOWN', 'RECOVERY', 'ACTIVE', 'INTERVAL', 'MAIN']);
const DURATIONS = new Set([
  'TIME',
  'DISTANCE',
  'HR_LESS_THAN',
  'HR_GREATER_THAN',
  'CALORIES',
  'OPEN',
  'POWER_LESS_THAN',
  'POWER_GREATER_THAN',
  'TIME_AT_VALID_CDA',
  'FIXED_REST',
  'REPS',
]);
const TARGETS = new Set(['SPEED', 'HEART_RATE', 'OPEN', 'CADENCE', 'POWER', 'GRADE', 'RESISTANCE', 'PACE']);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const bad = (message: string): FakeReply => ({ status: 400, body: { errorMessage: message } });
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** Garmin's checks of one step; the reason it is refused, or null. */
function stepProblem(step: Record<string, unknown>, where: string): string | null {
  if (!INTENSITIES.has(String(step.intensity)))
    return `${where}: unknown intensity ${String(step.intensity)}`;
  if (!DURATIONS.has(String(step.durationType)))
    return `${where}: unknown durationType ${String(step.durationType)}`;
  if (step.durationType !== 'OPEN' && !(isNumber(step.durationValue) && step.durationValue > 0))
    return `${where}: durationValue must be a positive number`;
  for (const prefix of ['target', 'secondaryTarget']) {
    const type = step[`${prefix}Type`];
    if (type === undefined && prefix === 'secondaryTarget') continue;
    if (!TARGETS.has(String(type))) return `${where}: unknown ${prefix}Type ${String(type)}`;
    if (type === 'OPEN') continue;
    const low = step[`${prefix}ValueLow`];
    const high = step[`${prefix}ValueHigh`];
    if (!isNumber(low) || !isNumber(high) || low > high || low < 0)
      return `${where}: ${prefix}ValueLow/High must be numbers, low <= high`;
  }
  return null;
}

/** Garmin's checks of a workout body; the reason it is refused, or null. */
export function workoutProblem(body: unknown): string | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the body must be a workout';
  const workout = body as Record<string, unknown>;
  if (
    typeof workout.workoutName !== 'string' ||
    workout.workoutName.length === 0 ||
    workout.workoutName.length > 80
  )
    return 'workoutName is required (at most 80 characters)';
  if (!SPORTS.has(String(workout.sport))) return `unknown sport ${String(workout.sport)}`;
  if (!Array.isArray(workout.segments) || workout.segments.length === 0) return 'segments are required';
  let expected = 1;
  for (const segment of workout.segments as Record<string, unknown>[]) {
    if (!Array.isArray(segment?.steps) || segment.steps.length === 0) return 'every segment needs steps';
    for (const step of segment.steps as Record<string, unknown>[]) {
      if (step.stepOrder !== expected++) return `stepOrder ${String(step.stepOrder)} out of sequence`;
      if (step.type === 'WorkoutStep') {
        const problem = stepProblem(step, `step ${String(step.stepOrder)}`);
        if (problem) return problem;
      } else if (step.type === 'WorkoutRepeatStep') {
        if (step.repeatType !== 'REPEAT_UNTIL_STEPS_CMPLT') return 'unsupported repeatType';
        if (!Number.isInteger(step.repeatValue) || (step.repeatValue as number) < 1)
          return 'repeatValue must be a positive integer';
        if (!Array.isArray(step.steps) || step.steps.length === 0) return 'a repeat group needs steps';
        for (const child of step.steps as Record<string, unknown>[]) {
          if (child.type !== 'WorkoutStep') return 'repeat groups hold plain steps only';
          if (child.stepOrder !== expected++) return `stepOrder ${String(child.stepOrder)} out of sequence`;
          const problem = stepProblem(child, `step ${String(child.stepOrder)}`);
          if (problem) return problem;
        }
      } else return `unknown step type ${String(step.type)}`;
    }
  }
  return null;
}

export function trainingRoutes(
  authorized: (request: FakeRequest) => Auth | FakeReply,
  nextId: () => number,
): Route[] {
  const admit = (request: FakeRequest): TrainingAccount | FakeReply => {
    const auth = authorized(request);
    if (!('account' in auth)) return auth;
    if (!auth.account.registered)
      return { status: 403, body: { errorMessage: 'User is not registered with this application' } };
    if (!auth.account.permissions.has('WORKOUT_IMPORT'))
      return { status: 403, body: { errorMessage: 'The user has not granted WORKOUT_IMPORT' } };
    return auth.account.training;
  };
  const json = (request: FakeRequest): unknown => {
    try {
      return JSON.parse(request.body);
    } catch {
      return undefined;
    }
  };
  return [
    {
      method: 'POST',
      path: '/training-api/workout',
      handler(request) {
        const training = admit(request);
        if (!('workouts' in training)) return training;
        const body = json(request);
        const problem = workoutProblem(body);
        if (problem) return bad(problem);
        const workout = { ...(body as Record<string, unknown>), workoutId: nextId(), ownerId: 1 };
        training.workouts.set(workout.workoutId, workout);
        return { status: 200, body: workout };
      },
    },
    {
      method: 'GET',
      path: '/training-api/workout/:id',
      handler(request) {
        const training = admit(request);
        if (!('workouts' in training)) return training;
        const workout = training.workouts.get(Number(request.params.id));
        return workout
          ? { status: 200, body: workout }
          : { status: 404, body: { errorMessage: 'Not Found' } };
      },
    },
    {
      method: 'DELETE',
      path: '/training-api/workout/:id',
      handler(request) {
        const training = admit(request);
        if (!('workouts' in training)) return training;
        const id = Number(request.params.id);
        if (!training.workouts.delete(id)) return { status: 404, body: { errorMessage: 'Not Found' } };
        training.schedules = training.schedules.filter((schedule) => schedule.workoutId !== id);
        return { status: 204 };
      },
    },
    {
      method: 'POST',
      path: '/training-api/schedule',
      handler(request) {
        const training = admit(request);
        if (!('workouts' in training)) return training;
        const body = json(request) as { workoutId?: unknown; date?: unknown } | undefined;
        const workoutId = Number(body?.workoutId);
        if (!training.workouts.has(workoutId)) return bad('workoutId names no workout of this user');
        if (typeof body?.date !== 'string' || !DATE.test(body.date)) return bad('date must be YYYY-MM-DD');
        const schedule = { scheduleId: nextId(), workoutId, date: body.date };
        training.schedules.push(schedule);
        return { status: 200, body: schedule.scheduleId };
      },
    },
    {
      method: 'GET',
      path: '/training-api/schedule',
      handler(request) {
        const training = admit(request);
        if (!('workouts' in training)) return training;
        const start = request.query.get('startDate') ?? '';
        const end = request.query.get('endDate') ?? '';
        if (!DATE.test(start) || !DATE.test(end) || end < start)
          return bad('startDate and endDate (YYYY-MM-DD, inclusive) are required');
        return {
          status: 200,
          body: training.schedules.filter((schedule) => schedule.date >= start && schedule.date <= end),
        };
      },
    },
  ];
}

/** A workout this partner app scheduled before: a weekly easy run with strides. */
export function seedWorkout(workoutId: number, date: string): TrainingWorkout {
  return {
    workoutId,
    ownerId: 1,
    workoutName: `Easy run ${date}`,
    sport: 'RUNNING',
    workoutProvider: 'Tributary',
    estimatedDurationInSecs: 2400,
    segments: [
      {
        segmentOrder: 1,
        sport: 'RUNNING',
        steps: [
          {
            type: 'WorkoutStep',
            stepOrder: 1,
            intensity: 'WARMUP',
            durationType: 'TIME',
            durationValue: 600,
            targetType: 'OPEN',
          },
          {
            type: 'WorkoutRepeatStep',
            stepOrder: 2,
            repeatType: 'REPEAT_UNTIL_STEPS_CMPLT',
            repeatValue: 4,
            steps: [
              {
                type: 'WorkoutStep',
                stepOrder: 3,
                intensity: 'INTERVAL',
                durationType: 'DISTANCE',
                durationValue: 100,
                durationValueType: 'METER',
                targetType: 'HEART_RATE',
                targetValueLow: 150,
                targetValueHigh: 165,
              },
            ],
          },
        ],
      },
    ],
  };
}

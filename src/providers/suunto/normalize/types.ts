// Minimal types for the Suunto Cloud API documents the normalizers read (providers-3.md §5:
// fields of a workout as captured live from /v3/workouts/{workoutKey} in open-wearables' tests,
// and the WORKOUT_CREATED webhook body in provider-samples/suunto-webhook_workout_created.json).
// Times are epoch milliseconds; `totalTime` is seconds; SI units otherwise.

export type SuuntoWorkout = {
  workoutKey: string;
  workoutId?: number | string | null;
  /** Suunto sport id. */
  activityId?: number | null;
  startTime: number;
  stopTime?: number | null;
  /** Seconds (float). */
  totalTime?: number | null;
  /** Local offset of the recording, minutes east of UTC. */
  timeOffsetInMinutes?: number | null;
  totalDistance?: number | null;
  totalAscent?: number | null;
  totalDescent?: number | null;
  minAltitude?: number | null;
  maxAltitude?: number | null;
  /** `x` is the longitude, `y` the latitude. */
  startPosition?: { x?: number | null; y?: number | null } | null;
  maxSpeed?: number | null;
  avgSpeed?: number | null;
  stepCount?: number | null;
  /** Seconds. */
  recoveryTime?: number | null;
  /** kcal. */
  energyConsumption?: number | null;
  tss?: { calculationMethod?: string | null; trainingStressScore?: number | null } | null;
  hrdata?: {
    workoutAvgHR?: number | null;
    workoutMaxHR?: number | null;
    userMaxHR?: number | null;
    hrmax?: number | null;
    avg?: number | null;
    max?: number | null;
  } | null;
  cadence?: { avg?: number | null; max?: number | null } | null;
  isManuallyAdded?: boolean | null;
  isEdited?: boolean | null;
  gear?: { manufacturer?: string | null; name?: string | null; serialNumber?: string | null } | null;
};

/** GET /v2/workouts: `{ error, metadata, payload }`. */
export type SuuntoWorkoutList = {
  error?: unknown;
  metadata?: Record<string, unknown> | null;
  payload?: readonly SuuntoWorkout[] | null;
};

/** A 24/7 sleep sample (GET /247samples/sleep) [C]. Durations in seconds. */
export type SuuntoSleepSample = {
  timestamp?: string | null;
  entryData?: {
    BedtimeStart?: string | null;
    BedtimeEnd?: string | null;
    Duration?: number | null;
    DeepSleepDuration?: number | null;
    LightSleepDuration?: number | null;
    REMSleepDuration?: number | null;
    HRAvg?: number | null;
    HRMin?: number | null;
    SleepQualityScore?: number | null;
    IsNap?: boolean | null;
    SleepId?: number | string | null;
  } | null;
};

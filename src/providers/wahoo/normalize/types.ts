// Minimal types for the Wahoo Cloud API documents the normalizers read
// (docs/providers.md#wahoo; ../shared/reference/providers-3.md §4). Numbers of a workout summary
// come as strings of decimals (or null); read them with `numeric`.

/** A decimal as Wahoo writes it: `"123.4"`, a number, or null. */
export type WahooDecimal = string | number | null;

/** GET /v1/user. Height (m) and weight (kg) are strings. */
export type WahooUser = {
  id: number | string;
  email?: string | null;
  first?: string | null;
  last?: string | null;
  height?: WahooDecimal;
  weight?: WahooDecimal;
  /** `YYYY-MM-DD`. */
  birth?: string | null;
  /** 0 male, 1 female, 2 other [C]. */
  gender?: number | null;
  created_at?: string | null;
  updated_at?: string | null;
};

export type WahooFileRef = { url?: string | null };

/** `workout_summary` of a workout (or the webhook body's). */
export type WahooWorkoutSummary = {
  id: number | string;
  ascent_accum?: WahooDecimal;
  cadence_avg?: WahooDecimal;
  calories_accum?: WahooDecimal;
  distance_accum?: WahooDecimal;
  duration_active_accum?: WahooDecimal;
  duration_paused_accum?: WahooDecimal;
  duration_total_accum?: WahooDecimal;
  heart_rate_avg?: WahooDecimal;
  power_avg?: WahooDecimal;
  power_bike_np_last?: WahooDecimal;
  power_bike_tss_last?: WahooDecimal;
  speed_avg?: WahooDecimal;
  /** Joules. */
  work_accum?: WahooDecimal;
  created_at?: string | null;
  updated_at?: string | null;
  /** IANA zone name, when Wahoo sends one [?]. */
  time_zone?: string | null;
  manual?: boolean | null;
  edited?: boolean | null;
  file?: WahooFileRef | null;
  files?: readonly WahooFileRef[] | null;
};

/** An item of GET /v1/workouts (or GET /v1/workouts/{id}). */
export type WahooWorkout = {
  id: number | string;
  /** ISO 8601 UTC. */
  starts: string;
  minutes?: number | string | null;
  name?: string | null;
  plan_id?: number | string | null;
  workout_token?: string | null;
  workout_type_id?: number | null;
  created_at?: string | null;
  updated_at?: string | null;
  workout_summary?: WahooWorkoutSummary | null;
};

/** GET /v1/workouts. */
export type WahooWorkoutList = {
  workouts: readonly WahooWorkout[];
  total?: number;
  page?: number;
  per_page?: number;
  order?: string;
  sort?: string;
};

// Minimal types for the WHOOP API v2 documents the normalizers read (OpenAPI 3.0.1,
// components.schemas.*). `score` is present only when `score_state` is SCORED. A record still in
// WHOOP's v1 shape names a sleep or workout by a long instead of a UUID (v1-v2 migration guide),
// so those ids are typed as either.

export type WhoopScoreState = 'SCORED' | 'PENDING_SCORE' | 'UNSCORABLE';

/** Cycle: a physiological day, from falling asleep to falling asleep again. */
export type WhoopCycle = {
  id: number;
  user_id: number;
  created_at: string;
  updated_at: string;
  /** UTC instants; `end` is absent while the cycle is ongoing. */
  start: string;
  end?: string | null;
  /** `+hh:mm`, `-hh:mm` or `Z`. */
  timezone_offset: string;
  score_state: WhoopScoreState;
  score?: { strain: number; kilojoule: number; average_heart_rate: number; max_heart_rate: number } | null;
};

export type WhoopRecovery = {
  cycle_id: number;
  /** The sleep's UUID (v2) or long (v1). */
  sleep_id: string | number;
  user_id: number;
  created_at: string;
  updated_at: string;
  score_state: WhoopScoreState;
  score?: {
    user_calibrating: boolean;
    recovery_score: number;
    resting_heart_rate: number;
    hrv_rmssd_milli: number;
    spo2_percentage?: number | null;
    skin_temp_celsius?: number | null;
  } | null;
};

export type WhoopSleep = {
  /** A UUID (v2) or a long (v1). */
  id: string | number;
  /** Absent in the v1 shape. */
  cycle_id?: number;
  v1_id?: number | null;
  user_id: number;
  created_at: string;
  updated_at: string;
  start: string;
  end: string;
  timezone_offset: string;
  nap: boolean;
  score_state: WhoopScoreState;
  score?: {
    stage_summary: {
      total_in_bed_time_milli: number;
      total_awake_time_milli: number;
      total_no_data_time_milli: number;
      total_light_sleep_time_milli: number;
      total_slow_wave_sleep_time_milli: number;
      total_rem_sleep_time_milli: number;
      sleep_cycle_count: number;
      disturbance_count: number;
    };
    sleep_needed: {
      baseline_milli: number;
      need_from_sleep_debt_milli: number;
      need_from_recent_strain_milli: number;
      need_from_recent_nap_milli: number;
    };
    respiratory_rate?: number | null;
    sleep_performance_percentage?: number | null;
    sleep_consistency_percentage?: number | null;
    sleep_efficiency_percentage?: number | null;
  } | null;
};

export type WhoopZoneDurations = {
  zone_zero_milli: number;
  zone_one_milli: number;
  zone_two_milli: number;
  zone_three_milli: number;
  zone_four_milli: number;
  zone_five_milli: number;
};

/** WorkoutV2. `sport_id` and `v1_id` are deprecated (gone after 2025-09-01). */
export type WhoopWorkout = {
  /** A UUID (v2) or a long (v1). */
  id: string | number;
  v1_id?: number | null;
  user_id: number;
  created_at: string;
  updated_at: string;
  start: string;
  end: string;
  timezone_offset: string;
  /** Absent in the v1 shape (only `sport_id`). */
  sport_name?: string;
  sport_id?: number | null;
  score_state: WhoopScoreState;
  score?: {
    strain: number;
    average_heart_rate: number;
    max_heart_rate: number;
    kilojoule: number;
    percent_recorded: number;
    distance_meter?: number | null;
    altitude_gain_meter?: number | null;
    altitude_change_meter?: number | null;
    zone_durations?: WhoopZoneDurations;
    /** The v1 name of `zone_durations`. */
    zone_duration?: WhoopZoneDurations;
  } | null;
};

export type WhoopProfile = { user_id: number; email: string; first_name: string; last_name: string };

export type WhoopBodyMeasurement = { height_meter: number; weight_kilogram: number; max_heart_rate: number };

/** Collection envelope: `{records, next_token}`; no `next_token` on the last page. */
export type WhoopPage<T> = { records: readonly T[]; next_token?: string | null };

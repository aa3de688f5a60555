// Minimal types for the Oura API v2 documents the normalizers read (OpenAPI 1.29,
// components.schemas.*). Only read fields are listed; every optional or nullable field in the
// spec is optional here too, because older recorded responses omit some (e.g. `meta`,
// `timestamp_unix`).

/** `PublicSample`: `items[i]` was recorded `i * interval` seconds after `timestamp`. */
export type OuraSampleSeries = {
  interval: number;
  items: readonly (number | null)[];
  /** LocalizedDateTime, e.g. `2024-10-10T01:01:59.000+02:00`. */
  timestamp: string;
};

export type OuraContributors = Readonly<Record<string, number | null | undefined>>;

/** `PublicWorkout`. */
export type OuraWorkout = {
  id: string;
  activity: string;
  calories?: number | null;
  day: string;
  distance?: number | null;
  start_datetime: string;
  end_datetime: string;
  intensity: 'easy' | 'moderate' | 'hard';
  label?: string | null;
  source: 'manual' | 'autodetected' | 'confirmed' | 'workout_heart_rate';
};

/** `PublicSession`. */
export type OuraSession = {
  id: string;
  day: string;
  start_datetime: string;
  end_datetime: string;
  type: 'breathing' | 'meditation' | 'nap' | 'relaxation' | 'rest' | 'body_status';
  heart_rate?: OuraSampleSeries | null;
  heart_rate_variability?: OuraSampleSeries | null;
  mood?: string | null;
  motion_count?: OuraSampleSeries | null;
};

/** `PublicReadiness` (embedded in a sleep period). */
export type OuraReadiness = {
  contributors: OuraContributors;
  score?: number | null;
  temperature_deviation?: number | null;
  temperature_trend_deviation?: number | null;
};

/** `PublicModifiedSleepModel`: one sleep period (several per day). */
export type OuraSleepPeriod = {
  id: string;
  day: string;
  bedtime_start: string;
  bedtime_end: string;
  type?: 'deleted' | 'sleep' | 'long_sleep' | 'late_nap' | 'rest' | null;
  average_breath?: number | null;
  average_heart_rate?: number | null;
  average_hrv?: number | null;
  awake_time?: number | null;
  deep_sleep_duration?: number | null;
  light_sleep_duration?: number | null;
  rem_sleep_duration?: number | null;
  total_sleep_duration?: number | null;
  time_in_bed: number;
  efficiency?: number | null;
  latency?: number | null;
  lowest_heart_rate?: number | null;
  heart_rate?: OuraSampleSeries | null;
  hrv?: OuraSampleSeries | null;
  readiness?: OuraReadiness | null;
  sleep_phase_5_min?: string | null;
  sleep_phase_30_sec?: string | null;
};

/** `PublicDailySleep`. */
export type OuraDailySleep = {
  id: string;
  day: string;
  score?: number | null;
  contributors: OuraContributors;
  timestamp: string;
};

/** `PublicDailyReadiness`. */
export type OuraDailyReadiness = {
  id: string;
  day: string;
  score?: number | null;
  contributors: OuraContributors;
  temperature_deviation?: number | null;
  temperature_trend_deviation?: number | null;
  timestamp: string;
};

/** `PublicDailySpO2`. */
export type OuraDailySpo2 = {
  id: string;
  day: string;
  spo2_percentage?: { average: number } | null;
  breathing_disturbance_index?: number | null;
};

/** `PublicDailyActivity`: the day runs 04:00 -> 04:00 local, starting at `timestamp`. */
export type OuraDailyActivity = {
  id: string;
  day: string;
  timestamp: string;
  score?: number | null;
  active_calories: number;
  total_calories: number;
  steps: number;
  equivalent_walking_distance: number;
  high_activity_time: number;
  medium_activity_time: number;
  low_activity_time: number;
  sedentary_time: number;
  resting_time: number;
  non_wear_time: number;
  inactivity_alerts: number;
  average_met_minutes: number;
  class_5_min?: string | null;
  met?: OuraSampleSeries | null;
  contributors?: OuraContributors;
};

/** `PublicDailyStress`: durations in seconds. */
export type OuraDailyStress = {
  id: string;
  day: string;
  stress_high?: number | null;
  recovery_high?: number | null;
  day_summary?: 'restored' | 'normal' | 'stressful' | null;
};

/** `PublicHeartRateRow`: `timestamp` is UTC; `timestamp_unix` (ms) exists from spec 1.29. */
export type OuraHeartRateRow = {
  bpm: number;
  source: 'awake' | 'workout' | 'rest' | 'sleep' | 'live' | 'session';
  timestamp: string;
  timestamp_unix?: number;
};

/** `PublicVO2Max`. */
export type OuraVo2Max = {
  id: string;
  day: string;
  timestamp: string;
  vo2_max: number;
};

/** `TagModel` (deprecated by Oura in favour of enhanced tags, still served). */
export type OuraTag = {
  id: string;
  day: string;
  text?: string | null;
  /** LocalDateTime. */
  timestamp: string;
  tags: readonly string[];
};

/** `EnhancedTagModel`. */
export type OuraEnhancedTag = {
  id: string;
  tag_type_code?: string | null;
  start_time: string;
  end_time?: string | null;
  start_day: string;
  end_day?: string | null;
  comment?: string | null;
  custom_name?: string | null;
};

/** `PersonalInfoResponse`: weight in kg, height in m. */
export type OuraPersonalInfo = {
  id: string;
  age?: number | null;
  weight?: number | null;
  height?: number | null;
  biological_sex?: string | null;
  email?: string | null;
};

// Minimal types for the Polar AccessLink v3 documents the normalizers read
// (Polar's published OpenAPI, components.schemas.*; docs/providers.md#polar). Only read fields are
// listed. Polar mixes snake_case and kebab-case keys in one document; they are kept verbatim.

/** `HeartRate`. */
export type PolarHeartRateSummary = { average?: number | null; maximum?: number | null };

/** `zone`: heart-rate zone bounds in bpm and the time spent in it (ISO 8601 duration). */
export type PolarZone = {
  index?: number;
  'lower-limit'?: number | null;
  'upper-limit'?: number | null;
  'in-zone'?: string | null;
};

/**
 * `sample`: `data` is a comma-separated list of values recorded every `recording-rate`
 * seconds from the start (`null` entries mean the sensor was offline). `sample-type` codes
 * (Polar's "exercise sample types"): 0 heart rate bpm, 1 speed km/h, 2 cadence rpm,
 * 3 altitude m, 4 power W, 5 pedalling index %, 6 L/R balance %, 7 air pressure hPa,
 * 8 running cadence spm, 9 temperature °C, 10 distance m, 11 RR interval ms (no rate).
 */
export type PolarSample = {
  'recording-rate'?: number | null;
  'sample-type': string;
  data: string;
};

/** `location`: `time` is the offset from the start as an ISO 8601 duration (`PT210.026S`). */
export type PolarRoutePoint = {
  latitude: number;
  longitude: number;
  time: string;
  satellites?: number;
  fix?: number;
};

/** `training-load-pro-sample`. */
export type PolarTrainingLoadPro = {
  date?: string;
  'cardio-load'?: number | null;
  'muscle-load'?: number | null;
  'perceived-load'?: number | null;
};

/** `exerciseHashId`: `start_time` is local wall-clock time, `start_time_utc_offset` minutes east. */
export type PolarExercise = {
  id: string;
  upload_time?: string | null;
  polar_user?: string;
  device?: string | null;
  device_id?: string | null;
  start_time: string;
  start_time_utc_offset?: number | null;
  duration?: string | null;
  calories?: number | null;
  distance?: number | null;
  heart_rate?: PolarHeartRateSummary | null;
  training_load?: number | null;
  sport?: string | null;
  has_route?: boolean;
  club_id?: number;
  club_name?: string;
  detailed_sport_info?: string | null;
  fat_percentage?: number;
  carbohydrate_percentage?: number;
  protein_percentage?: number;
  'running-index'?: number | null;
  heart_rate_zones?: readonly PolarZone[] | null;
  samples?: readonly PolarSample[] | null;
  route?: readonly PolarRoutePoint[] | null;
  training_load_pro?: PolarTrainingLoadPro | null;
};

/** `activity-zone-sample2`: the zone in force from `timestamp` (local) until the next sample. */
export type PolarActivityZoneSample = {
  zone?: 'SEDENTARY' | 'LIGHT' | 'SLEEP' | 'MODERATE' | 'VIGOROUS';
  timestamp: string;
};

/** `activity-step-sample2`: steps in the segment starting at `timestamp` (local, `YYYY-MM-DDTHH:mm`). */
export type PolarStepSample = { steps?: number | null; timestamp: string };

/** `activity-day-with-samples`. */
export type PolarActivityDaySamples = {
  date?: string;
  steps?: { interval_ms?: number; total_steps?: number; samples?: readonly PolarStepSample[] } | null;
  activity_zones?: { samples?: readonly PolarActivityZoneSample[] } | null;
  inactivity_stamps?: readonly { stamp?: string }[] | null;
};

/** `activity-summary-with-all-samples`: times are device-local wall clock, no zone. */
export type PolarActivity = {
  start_time: string;
  end_time?: string | null;
  active_duration?: string | null;
  inactive_duration?: string | null;
  daily_activity?: number | null;
  calories?: number | null;
  active_calories?: number | null;
  steps?: number | null;
  inactivity_alert_count?: number | null;
  distance_from_steps?: number | null;
  samples?: PolarActivityDaySamples | null;
};

/** `continuous-heartrate`: `sample_time` is `HH:mm:ss` device time on `date`. */
export type PolarContinuousHeartRate = {
  polar_user?: string;
  date: string;
  heart_rate_samples?: readonly { heart_rate?: number | null; sample_time: string }[] | null;
};

/** `"HH:mm" -> value` maps of the sleep and recharge documents (device-local times). */
export type PolarClockSeries = Readonly<Record<string, number>>;

/** `sleep`: one night; durations in seconds, start/end with their UTC offset. */
export type PolarNight = {
  polar_user?: string;
  date: string;
  sleep_start_time: string;
  sleep_end_time: string;
  device_id?: string | null;
  continuity?: number | null;
  continuity_class?: number | null;
  light_sleep?: number | null;
  deep_sleep?: number | null;
  rem_sleep?: number | null;
  unrecognized_sleep_stage?: number | null;
  sleep_score?: number | null;
  total_interruption_duration?: number | null;
  sleep_charge?: number | null;
  sleep_goal?: number | null;
  sleep_rating?: number | null;
  short_interruption_duration?: number | null;
  long_interruption_duration?: number | null;
  sleep_cycles?: number | null;
  group_duration_score?: number | null;
  group_solidity_score?: number | null;
  group_regeneration_score?: number | null;
  /** 0 wake, 1 REM, 2 lighter non-REM, 3 light non-REM, 4 deep non-REM, 5 unknown. */
  hypnogram?: PolarClockSeries | null;
  heart_rate_samples?: PolarClockSeries | null;
};

/** `nightly-recharge`: keyed by the night's `date`, like `sleep`. */
export type PolarNightlyRecharge = {
  polar_user?: string;
  date: string;
  heart_rate_avg?: number | null;
  beat_to_beat_avg?: number | null;
  heart_rate_variability_avg?: number | null;
  breathing_rate_avg?: number | null;
  /** 1 very poor … 6 very good. */
  nightly_recharge_status?: number | null;
  ans_charge?: number | null;
  ans_charge_status?: number | null;
  hrv_samples?: PolarClockSeries | null;
  breathing_samples?: PolarClockSeries | null;
};

/** `physical-info`: weight kg, height cm. */
export type PolarPhysicalInfo = {
  weight?: number | null;
  height?: number | null;
  created?: string | null;
  modified?: string | null;
  birthday?: string | null;
  gender?: 'MALE' | 'FEMALE' | null;
  maximum_heart_rate?: number | null;
  resting_heart_rate?: number | null;
  aerobic_threshold?: number | null;
  anaerobic_threshold?: number | null;
  vo2_max?: number | null;
  weight_source?:
    'SOURCE_DEFAULT' | 'SOURCE_ESTIMATE' | 'SOURCE_USER' | 'SOURCE_MEASURED' | 'SOURCE_KEEP' | null;
  training_background?: string | null;
  typical_day?: string | null;
  sleep_goal?: string | null;
};

/** `user`. */
export type PolarUser = {
  'polar-user-id': number;
  'member-id'?: string;
  'registration-date'?: string | null;
  'first-name'?: string | null;
  'last-name'?: string | null;
  birthdate?: string | null;
  gender?: 'MALE' | 'FEMALE' | null;
  weight?: number | null;
  height?: number | null;
  'extra-info'?: readonly { value?: string; index?: number; name?: string }[] | null;
};

// Intervals.icu payloads, as the published OpenAPI document (intervals.icu/api/v1/docs, schemas
// Activity, Wellness, WithSportSettings, Event) describes them. Every field is optional: the API
// leaves out what it does not have, and the normalizers treat absent and null alike.

/** GET /api/v1/athlete/{id}/activities: one completed activity (schema `Activity`). */
export type IntervalsActivity = {
  /** `i` followed by digits, e.g. `i140254351`. */
  id: string;
  /** Local wall time without an offset, e.g. `2026-04-16T07:28:47`. */
  start_date_local: string;
  /** The same instant in UTC, `Z`-terminated. */
  start_date?: string | null;
  timezone?: string | null;
  type?: string | null;
  name?: string | null;
  source?: string | null;
  elapsed_time?: number | null;
  moving_time?: number | null;
  distance?: number | null;
  total_elevation_gain?: number | null;
  total_elevation_loss?: number | null;
  average_altitude?: number | null;
  min_altitude?: number | null;
  max_altitude?: number | null;
  trainer?: boolean | null;
  average_speed?: number | null;
  max_speed?: number | null;
  average_cadence?: number | null;
  average_heartrate?: number | null;
  max_heartrate?: number | null;
  athlete_max_hr?: number | null;
  calories?: number | null;
  icu_joules?: number | null;
  icu_average_watts?: number | null;
  icu_weighted_avg_watts?: number | null;
  icu_training_load?: number | null;
  /** Intensity factor as a percentage (66.8 = IF 0.668). */
  icu_intensity?: number | null;
  trimp?: number | null;
  device_name?: string | null;
  device_watts?: boolean | null;
  icu_hr_zones?: number[] | null;
  icu_hr_zone_times?: number[] | null;
  lengths?: number | null;
  pool_length?: number | null;
  icu_athlete_id?: string | null;
};

/** GET /api/v1/athlete/{id}/wellness: one local day (schema `Wellness`; `id` is the date). */
export type IntervalsWellness = {
  id: string;
  updated?: string | null;
  weight?: number | null;
  restingHR?: number | null;
  hrv?: number | null;
  hrvSDNN?: number | null;
  kcalConsumed?: number | null;
  sleepSecs?: number | null;
  sleepScore?: number | null;
  /** 1 (great) … 4 (poor), as the web app's wellness form offers it. */
  sleepQuality?: number | null;
  avgSleepingHR?: number | null;
  soreness?: number | null;
  fatigue?: number | null;
  stress?: number | null;
  mood?: number | null;
  motivation?: number | null;
  spO2?: number | null;
  systolic?: number | null;
  diastolic?: number | null;
  hydrationVolume?: number | null;
  readiness?: number | null;
  bloodGlucose?: number | null;
  bodyFat?: number | null;
  vo2max?: number | null;
  steps?: number | null;
  respiration?: number | null;
  comments?: string | null;
};

/** GET /api/v1/athlete/{id} (schema `WithSportSettings`, the fields read here). */
export type IntervalsAthlete = {
  id: string;
  name?: string | null;
  firstname?: string | null;
  lastname?: string | null;
  email?: string | null;
  sex?: string | null;
  city?: string | null;
  state?: string | null;
  country?: string | null;
  timezone?: string | null;
  icu_date_of_birth?: string | null;
  icu_activated?: string | null;
};

/** GET /api/v1/athlete/{id}/events: a calendar entry (schema `Event`). */
export type IntervalsEvent = {
  id: number;
  category?: string | null;
  /** Local date with a zero time: `2026-04-17T00:00:00`. */
  start_date_local: string;
  name?: string | null;
  description?: string | null;
  type?: string | null;
  moving_time?: number | null;
  distance?: number | null;
  icu_training_load?: number | null;
  icu_intensity?: number | null;
  joules?: number | null;
  external_id?: string | null;
  updated?: string | null;
};

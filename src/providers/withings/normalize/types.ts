// Minimal types for the Withings documents the normalizers read (Withings' published OpenAPI;
// docs/providers.md#withings). Every Withings call answers `{status, body}` with status 0 on success;
// these are the `body` objects. Times are unix seconds; `timezone` is an IANA zone name.

/** `measure_object`: the real value is `value × 10^unit`. */
export type WithingsMeasure = { value: number; type: number; unit: number; algo?: number; position?: number };

/** `measuregrp_object`: measures taken together (e.g. systolic + diastolic + pulse). */
export type WithingsMeasureGroup = {
  grpid: number;
  /** How the group was attributed: 0/8 device, 1 ambiguous, 2 manual, 4 at user creation, … */
  attrib?: number;
  date: number;
  created?: number;
  modified?: number;
  /** 1 real measurement, 2 user objective. */
  category?: number;
  deviceid?: string | null;
  hash_deviceid?: string | null;
  measures: readonly WithingsMeasure[];
  model?: string | null;
  model_id?: number | null;
  /** Not in the spec's group object, but sent by some accounts; preferred over the body's. */
  timezone?: string;
};

/** Body of `measure?action=getmeas`. */
export type WithingsGetmeasBody = {
  updatetime?: string | number;
  timezone?: string;
  measuregrps: readonly WithingsMeasureGroup[];
  more?: number | boolean;
  offset?: number;
};

/** `activity_object` (body of `v2/measure?action=getactivity`, `activities[]`). */
export type WithingsActivity = {
  date: string;
  timezone?: string | null;
  deviceid?: string | null;
  hash_deviceid?: string | null;
  brand?: number;
  is_tracker?: boolean;
  modified?: number;
  model?: string | null;
  modelid?: number | null;
  steps?: number | null;
  distance?: number | null;
  /** Floors climbed. */
  elevation?: number | null;
  soft?: number | null;
  moderate?: number | null;
  intense?: number | null;
  active?: number | null;
  /** Active kcal. */
  calories?: number | null;
  totalcalories?: number | null;
  hr_average?: number | null;
  hr_min?: number | null;
  hr_max?: number | null;
  hr_zone_0?: number | null;
  hr_zone_1?: number | null;
  hr_zone_2?: number | null;
  hr_zone_3?: number | null;
};

export type WithingsActivityBody = {
  activities: readonly WithingsActivity[];
  more?: boolean | number;
  offset?: number;
};

/** One interval of `v2/measure?action=getintradayactivity`, keyed by its unix start. */
export type WithingsIntradayPoint = {
  deviceid?: string;
  model?: string;
  model_id?: number;
  steps?: number;
  elevation?: number;
  calories?: number;
  distance?: number;
  stroke?: number;
  pool_lap?: number;
  duration?: number;
  heart_rate?: number;
  spo2_auto?: number;
};

export type WithingsIntradayBody = { series: Readonly<Record<string, WithingsIntradayPoint>> };

/** `workout_object` (body of `v2/measure?action=getworkouts`, `series[]`). */
export type WithingsWorkout = {
  id: number;
  category: number;
  timezone?: string | null;
  model?: number | null;
  attrib?: number;
  startdate: number;
  enddate: number;
  date?: string;
  modified?: number;
  deviceid?: string | null;
  data?: {
    algo_pause_duration?: number | null;
    calories?: number | null;
    distance?: number | null;
    elevation?: number | null;
    hr_average?: number | null;
    hr_max?: number | null;
    hr_min?: number | null;
    hr_zone_0?: number | null;
    hr_zone_1?: number | null;
    hr_zone_2?: number | null;
    hr_zone_3?: number | null;
    intensity?: number | null;
    manual_calories?: number | null;
    manual_distance?: number | null;
    manual_intensity?: number | null;
    pause_duration?: number | null;
    pool_laps?: number | null;
    pool_length?: number | null;
    spo2_average?: number | null;
    steps?: number | null;
    strokes?: number | null;
  } | null;
};

export type WithingsWorkoutsBody = {
  series: readonly WithingsWorkout[];
  more?: boolean | number;
  offset?: number;
};

/** `sleep_summary_object` (body of `v2/sleep?action=getsummary`, `series[]`). */
export type WithingsSleepSummary = {
  id: number;
  timezone?: string | null;
  /** 16 tracker, 32 sleep monitor. */
  model?: number | null;
  model_id?: number | null;
  startdate: number;
  enddate: number;
  date?: string;
  created?: number;
  modified?: number;
  hash_deviceid?: string | null;
  completed?: boolean;
  data?: {
    total_timeinbed?: number | null;
    total_sleep_time?: number | null;
    asleepduration?: number | null;
    lightsleepduration?: number | null;
    remsleepduration?: number | null;
    deepsleepduration?: number | null;
    sleep_efficiency?: number | null;
    sleep_latency?: number | null;
    wakeup_latency?: number | null;
    wakeupduration?: number | null;
    wakeupcount?: number | null;
    waso?: number | null;
    nb_rem_episodes?: number | null;
    out_of_bed_count?: number | null;
    hr_average?: number | null;
    hr_min?: number | null;
    hr_max?: number | null;
    rr_average?: number | null;
    rr_min?: number | null;
    rr_max?: number | null;
    snoring?: number | null;
    snoringepisodecount?: number | null;
    sleep_score?: number | null;
    rmssd_start_avg?: number | null;
    rmssd_end_avg?: number | null;
    apnea_hypopnea_index?: number | null;
  } | null;
};

export type WithingsSleepSummaryBody = {
  series: readonly WithingsSleepSummary[];
  more?: boolean | number;
  offset?: number;
};

/** `{ "<unix seconds>": value }` series of `v2/sleep?action=get`. */
export type WithingsTimedValues = Readonly<Record<string, number>>;

/**
 * One state segment of `v2/sleep?action=get`: state 0 awake, 1 light, 2 deep, 3 REM, 4 manual,
 * 5 unspecified, 15 out of bed. The spec types `series` as one object; the service sends a list.
 */
export type WithingsSleepSegment = {
  startdate: number;
  enddate: number;
  state: number;
  model?: string;
  model_id?: number;
  hr?: WithingsTimedValues;
  rr?: WithingsTimedValues;
  snoring?: WithingsTimedValues;
  sdnn_1?: WithingsTimedValues;
  rmssd?: WithingsTimedValues;
};

export type WithingsSleepBody = {
  series: readonly WithingsSleepSegment[] | WithingsSleepSegment;
  model?: number;
};

/** `heart_measurement_object` (body of `v2/heart?action=list`, `series[]`). */
export type WithingsHeartMeasurement = {
  deviceid?: string | null;
  /** 44 BPM Core, 91 Move ECG. */
  model?: number | null;
  ecg?: { signalid?: number; afib?: number } | null;
  bloodpressure?: { diastole?: number; systole?: number } | null;
  heart_rate?: number | null;
  modified?: number;
  timestamp: number;
};

export type WithingsHeartListBody = {
  series: readonly WithingsHeartMeasurement[];
  more?: boolean | number;
  offset?: number;
};

/** Body of `v2/heart?action=get&signalid=…`: the ECG trace in µV at `sampling_frequency` Hz. */
export type WithingsHeartSignalBody = {
  signal: readonly number[];
  sampling_frequency: number;
  wearposition?: number;
  model?: number;
  heart_rate?: number;
};

/** A kind's payload: one response body, or the bodies of every page (`more`/`offset`). */
export type Pages<Body> = Body | readonly Body[];

export function pagesOf<Body>(pages: Pages<Body> | undefined): readonly Body[] {
  if (pages === undefined) return [];
  return Array.isArray(pages) ? (pages as readonly Body[]) : [pages as Body];
}

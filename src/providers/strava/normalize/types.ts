// Minimal types for the Strava API v3 documents the normalizers read (swagger.json and its
// model files activity.json, athlete.json, stream.json, zones.json). Ids are int64: parse
// responses with `parseStravaJson` (json.ts) so ids beyond 2^53 arrive as exact strings.

export type StravaId = number | string;

export type StravaLatLng = readonly [number, number] | readonly number[];

/** SummaryActivity; DetailedActivity adds `calories`, `description`, `device_name`, `laps`, ... */
export type StravaActivity = {
  id: StravaId;
  name: string;
  distance?: number | null;
  moving_time?: number | null;
  elapsed_time: number;
  total_elevation_gain?: number | null;
  elev_high?: number | null;
  elev_low?: number | null;
  /** Legacy ActivityType; `sport_type` supersedes it. */
  type?: string | null;
  sport_type?: string | null;
  /** UTC, e.g. `2018-02-16T14:52:54Z`. */
  start_date: string;
  /** Local wall time written with a (misleading) `Z`. */
  start_date_local?: string | null;
  timezone?: string | null;
  /** Seconds east of UTC at the activity's start (DST included). */
  utc_offset?: number | null;
  start_latlng?: StravaLatLng | null;
  end_latlng?: StravaLatLng | null;
  location_city?: string | null;
  location_state?: string | null;
  location_country?: string | null;
  map?: { id?: string; polyline?: string | null; summary_polyline?: string | null } | null;
  trainer?: boolean | null;
  manual?: boolean | null;
  average_speed?: number | null;
  max_speed?: number | null;
  average_cadence?: number | null;
  average_watts?: number | null;
  max_watts?: number | null;
  weighted_average_watts?: number | null;
  /** Mechanical work from the power data, kJ. */
  kilojoules?: number | null;
  has_heartrate?: boolean | null;
  average_heartrate?: number | null;
  max_heartrate?: number | null;
  /** Detailed only: energy expended, kcal. */
  calories?: number | null;
  device_name?: string | null;
  laps?: readonly StravaLap[] | null;
};

/** Lap (GET /activities/{id}/laps, or DetailedActivity.laps). */
export type StravaLap = {
  id: StravaId;
  name?: string | null;
  elapsed_time: number;
  moving_time?: number | null;
  start_date: string;
  distance?: number | null;
  total_elevation_gain?: number | null;
  average_speed?: number | null;
  max_speed?: number | null;
  average_cadence?: number | null;
  average_watts?: number | null;
  average_heartrate?: number | null;
  max_heartrate?: number | null;
  lap_index?: number | null;
};

export type StravaStreamType =
  | 'time'
  | 'distance'
  | 'latlng'
  | 'altitude'
  | 'velocity_smooth'
  | 'heartrate'
  | 'cadence'
  | 'watts'
  | 'temp'
  | 'moving'
  | 'grade_smooth';

export type StravaStream<Datum> = {
  data: readonly Datum[];
  series_type?: string;
  original_size?: number;
  resolution?: string;
};

/** StreamSet (`key_by_type=true`): one stream per requested key that the activity has. */
export type StravaStreamSet = {
  time?: StravaStream<number>;
  distance?: StravaStream<number>;
  latlng?: StravaStream<StravaLatLng>;
  altitude?: StravaStream<number>;
  velocity_smooth?: StravaStream<number>;
  heartrate?: StravaStream<number>;
  cadence?: StravaStream<number>;
  watts?: StravaStream<number | null>;
  temp?: StravaStream<number>;
  moving?: StravaStream<boolean>;
  grade_smooth?: StravaStream<number>;
};

/** The same streams without `key_by_type` (the swagger example's array form). */
export type StravaStreamList = readonly (StravaStream<unknown> & { type: StravaStreamType })[];

export type StravaZoneRange = { min: number; max: number };

/** GET /athlete/zones (zones.json#/Zones): bpm / watt ranges; the last `max` is -1 (open). */
export type StravaZones = {
  heart_rate?: { custom_zones?: boolean; zones?: readonly StravaZoneRange[] } | null;
  power?: { zones?: readonly StravaZoneRange[] } | null;
};

/** GET /activities/{id}/zones (ActivityZone): seconds spent in each range. */
export type StravaActivityZone = {
  type: 'heartrate' | 'power' | string;
  distribution_buckets: readonly (StravaZoneRange & { time: number })[];
  sensor_based?: boolean;
  custom_zones?: boolean;
  max?: number;
  score?: number;
};

/** DetailedAthlete (summary fields when the token lacks profile:read_all). */
export type StravaAthlete = {
  id: StravaId;
  username?: string | null;
  firstname?: string | null;
  lastname?: string | null;
  city?: string | null;
  state?: string | null;
  country?: string | null;
  sex?: 'M' | 'F' | string | null;
  created_at?: string | null;
  weight?: number | null;
  ftp?: number | null;
};

// Minimal types for the Concept2 Logbook API documents the normalizers read (providers-3.md §6,
// log.concept2.com/developers/documentation). Times of a result are tenths of a second; `date`
// is local wall time beside a `timezone` name and (usually) `date_utc`.

export type Concept2HeartRate = {
  average?: number | null;
  min?: number | null;
  max?: number | null;
  ending?: number | null;
  rest?: number | null;
};

/** A split or an interval of `workout`. */
export type Concept2Segment = {
  type?: string | null;
  /** Tenths of a second. */
  time?: number | null;
  distance?: number | null;
  calories_total?: number | null;
  stroke_rate?: number | null;
  heart_rate?: Concept2HeartRate | null;
  /** Intervals: rest after it, tenths of a second / metres. */
  rest_time?: number | null;
  rest_distance?: number | null;
};

export type Concept2Result = {
  id: number;
  user_id?: number | null;
  /** Local `YYYY-MM-DD HH:MM:SS`. */
  date: string;
  /** IANA zone name. */
  timezone?: string | null;
  /** UTC `YYYY-MM-DD HH:MM:SS`. */
  date_utc?: string | null;
  /** rower | skierg | bike | dynamic | slides | paddle | water | snow | rollerski | multierg. */
  type?: string | null;
  distance?: number | null;
  /** Tenths of a second. */
  time?: number | null;
  time_formatted?: string | null;
  workout_type?: string | null;
  source?: string | null;
  weight_class?: string | null;
  verified?: boolean | null;
  ranked?: boolean | null;
  comments?: string | null;
  privacy?: string | null;
  /** Whether stroke data exists for the result. */
  stroke_data?: boolean | null;
  stroke_rate?: number | null;
  stroke_count?: number | null;
  drag_factor?: number | null;
  calories_total?: number | null;
  heart_rate?: Concept2HeartRate | null;
  rest_distance?: number | null;
  rest_time?: number | null;
  workout?: {
    splits?: readonly Concept2Segment[] | null;
    intervals?: readonly Concept2Segment[] | null;
  } | null;
};

/**
 * One stroke (GET …/results/{id}/strokes): `t` tenths of a second since the start, `d` decimetres,
 * `p` tenths of a second per 500 m, `spm` strokes per minute, `hr` bpm.
 */
export type Concept2Stroke = {
  t?: number | null;
  d?: number | null;
  p?: number | null;
  spm?: number | null;
  hr?: number | null;
};

export type Concept2User = {
  id: number;
  username?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  gender?: string | null;
  dob?: string | null;
  email?: string | null;
  country?: string | null;
  max_heart_rate?: number | null;
  weight?: number | null;
};

/** `{ data, meta.pagination }` of a list. */
export type Concept2Page<T> = {
  data?: readonly T[] | null;
  meta?: {
    pagination?: {
      total?: number;
      count?: number;
      per_page?: number;
      current_page?: number;
      total_pages?: number;
      links?: { next?: string | null } | unknown[] | null;
    } | null;
  } | null;
};

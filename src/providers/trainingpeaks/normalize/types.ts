// TrainingPeaks Partners API payloads, as its wiki (github.com/TrainingPeaks/PartnersAPI/wiki)
// documents them: "Workouts Object", "v2 Metrics Get Athlete Metrics", "Coach Get Athletes" (the
// athlete fields). Every field is optional: basic (non-premium) athletes get null for most
// figures ("Premium vs Basic Athlete"), and "not every field will be returned for every metric".

/** A workout, planned or completed (GET /v2/workouts/{start}/{end}). Times are local, no offset. */
export type TpWorkout = {
  Id: number;
  AthleteId?: number | null;
  Title?: string | null;
  Description?: string | null;
  /** swim, bike, run, walk, mtb, xc-ski, rowing, brick, x-train, race, day off, strength, custom, other */
  WorkoutType?: string | null;
  /** The local day, `2014-04-15T00:00:00`. */
  WorkoutDay: string;
  /** Local start, `2014-04-15T12:57:59`. */
  StartTime?: string | null;
  StartTimePlanned?: string | null;
  Completed?: boolean | null;
  /** Decimal hours. */
  TotalTime?: number | null;
  TotalTimePlanned?: number | null;
  /** Metres. */
  Distance?: number | null;
  DistancePlanned?: number | null;
  Calories?: number | null;
  CaloriesPlanned?: number | null;
  /** Kilojoules. */
  Energy?: number | null;
  EnergyPlanned?: number | null;
  HeartRateAverage?: number | null;
  HeartRateMaximum?: number | null;
  HeartRateMinimum?: number | null;
  PowerAverage?: number | null;
  PowerMaximum?: number | null;
  NormalizedPower?: number | null;
  TssActual?: number | null;
  TssPlanned?: number | null;
  TssCalculationMethod?: string | null;
  IF?: number | null;
  IFPlanned?: number | null;
  /** m/s. */
  VelocityAverage?: number | null;
  VelocityMaximum?: number | null;
  VelocityPlanned?: number | null;
  CadenceAverage?: number | null;
  CadenceMaximum?: number | null;
  ElevationGain?: number | null;
  ElevationGainPlanned?: number | null;
  ElevationLoss?: number | null;
  ElevationMinimum?: number | null;
  ElevationAverage?: number | null;
  ElevationMaximum?: number | null;
  LastModifiedDate?: string | null;
};

/** One metric entry (GET /v2/metrics/{start}/{end}); `DateTime` is local, truncated to the minute. */
export type TpMetric = {
  MetricId: string;
  AthleteId?: number | null;
  DateTime: string;
  UploadClient?: string | null;
  WeightInKilograms?: number | null;
  HRV?: number | null;
  Steps?: number | null;
  Stress?: string | null;
  SleepQuality?: string | null;
  SleepHours?: number | null;
  Pulse?: number | null;
};

/** GET /v1/athlete/profile (the fields "Coach Get Athletes" lists for an athlete). */
export type TpAthlete = {
  Id: number;
  FirstName?: string | null;
  LastName?: string | null;
  Email?: string | null;
  TimeZone?: string | null;
  /** `1980-10`. */
  BirthMonth?: string | null;
  /** `m` or `f`. */
  Sex?: string | null;
  Weight?: number | null;
  IsPremium?: boolean | null;
  PreferredUnits?: string | null;
};

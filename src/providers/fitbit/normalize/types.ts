// Google Health API v4 data points (developers.google.com/health/reference/rest/v4,
// `users.dataTypes.dataPoints`; providers.md §10, providers-3.md §3), as the Fitbit connector reads
// them. Google's JSON mapping writes int64 fields as strings ("steps": "5320") and durations as
// "1800s"; every field is optional here because a normalizer must survive any of them missing.

/** google.protobuf.Duration in JSON ("3600s", "-18000s"); some clients send seconds as a number. */
export type GDuration = string | number;
/** int64 in Google's JSON: a string of digits (a number is accepted too). */
export type GInt64 = string | number;

export type CivilDate = { year?: number; month?: number; day?: number };
export type CivilDateTime = {
  date?: CivilDate;
  time?: { hours?: number; minutes?: number; seconds?: number };
};

export type TimeInterval = {
  startTime?: string;
  startUtcOffset?: GDuration;
  endTime?: string;
  endUtcOffset?: GDuration;
  civilStartTime?: CivilDateTime;
  civilEndTime?: CivilDateTime;
};

export type SampleTime = { physicalTime?: string; utcOffset?: GDuration; civilTime?: CivilDateTime };

export type DataSource = {
  /** MANUAL for entries typed in by the user [?]. */
  recordingMethod?: string;
  device?: { manufacturer?: string; displayName?: string; formFactor?: string };
  application?: { packageName?: string; displayName?: string };
};

export type Exercise = {
  interval?: TimeInterval;
  exerciseType?: string;
  displayName?: string;
  activeDuration?: GDuration;
  metricsSummary?: {
    caloriesKcal?: number;
    distanceMillimeters?: number;
    steps?: GInt64;
    averageHeartRateBeatsPerMinute?: GInt64;
    averageSpeedMillimetersPerSecond?: number;
    averagePaceSecondsPerMeter?: number;
    elevationGainMillimeters?: number;
    activeZoneMinutes?: GInt64;
    runVo2Max?: number;
    totalSwimLengths?: number;
  };
  notes?: string;
};

export type SleepStage = {
  startTime?: string;
  startUtcOffset?: GDuration;
  endTime?: string;
  endUtcOffset?: GDuration;
  /** AWAKE, LIGHT, DEEP, REM (stages sleep); ASLEEP, RESTLESS, AWAKE (classic sleep). */
  type?: string;
};

export type SleepSession = {
  interval?: TimeInterval;
  /** CLASSIC (AWAKE / RESTLESS / ASLEEP only) or STAGES (AWAKE / LIGHT / DEEP / REM). */
  type?: string;
  metadata?: {
    nap?: boolean;
    mainSleep?: boolean;
    manuallyEdited?: boolean;
    processed?: boolean;
    /** The stages algorithm's outcome: SUCCEEDED, or REJECTED_* / TIMEOUT / PROCESSING_INTERNAL_ERROR. */
    stagesStatus?: string;
  };
  stages?: SleepStage[];
  summary?: {
    minutesAsleep?: GInt64;
    minutesAwake?: GInt64;
    minutesInSleepPeriod?: GInt64;
    minutesToFallAsleep?: GInt64;
    minutesAfterWakeUp?: GInt64;
    stagesSummary?: { type?: string; minutes?: GInt64; count?: GInt64 }[];
  };
};

export type DataPoint = {
  /** users/{user}/dataTypes/{dataType}/dataPoints/{dataPoint} */
  name?: string;
  /** The same name on a reconciled point (`dataPoints:reconcile`). */
  dataPointName?: string;
  dataSource?: DataSource;
  exercise?: Exercise;
  sleep?: SleepSession;
  heartRate?: { sampleTime?: SampleTime; beatsPerMinute?: GInt64 };
  steps?: { interval?: TimeInterval; count?: GInt64 };
  distance?: { interval?: TimeInterval; millimeters?: GInt64 };
  floors?: { interval?: TimeInterval; count?: GInt64 };
  activeEnergyBurned?: { interval?: TimeInterval; kcal?: number };
  dailyRestingHeartRate?: { date?: CivilDate; beatsPerMinute?: GInt64 };
  dailyHeartRateVariability?: { date?: CivilDate; averageHeartRateVariabilityMilliseconds?: number };
  dailyRespiratoryRate?: { date?: CivilDate; breathsPerMinute?: number };
  dailyOxygenSaturation?: {
    date?: CivilDate;
    averagePercentage?: number;
    lowerBoundPercentage?: number;
    upperBoundPercentage?: number;
  };
  dailySleepTemperatureDerivations?: {
    date?: CivilDate;
    nightlyTemperatureCelsius?: number;
    baselineTemperatureCelsius?: number;
  };
  dailyVo2Max?: { date?: CivilDate; vo2Max?: number };
  weight?: { sampleTime?: SampleTime; weightGrams?: number };
  bodyFat?: { sampleTime?: SampleTime; percentage?: number };
  /** A session type: `interval` only (v4 discovery document, NutritionLog). */
  nutritionLog?: {
    interval?: TimeInterval;
    /** BEFORE_BREAKFAST, BREAKFAST, BEFORE_LUNCH, LUNCH, BEFORE_DINNER, DINNER, AFTER_DINNER, SNACK, ANYTIME. */
    mealType?: string;
    foodDisplayName?: string;
    energy?: { kcal?: number };
    totalCarbohydrate?: { grams?: number };
    totalFat?: { grams?: number };
    /** Every other nutrient (PROTEIN, SODIUM, SUGAR, DIETARY_FIBER…), each a weight in grams. */
    nutrients?: { nutrient?: string; quantity?: { grams?: number } }[];
    /** [?] the Serving schema was not read; amount and unit as Fitbit wrote them. */
    serving?: { amount?: number; unit?: string };
  };
  hydrationLog?: { interval?: TimeInterval; amountConsumed?: { milliliters?: number } };
};

/**
 * One civil-day window of `dataPoints:dailyRollUp` (DailyRollupDataPoint): the window's civil
 * bounds and, by the data type rolled up, its totals over the reconciled stream of all sources.
 */
export type RollupPoint = {
  civilStartTime?: CivilDateTime;
  civilEndTime?: CivilDateTime;
  steps?: { countSum?: GInt64 };
  distance?: { millimetersSum?: GInt64 };
  floors?: { countSum?: GInt64 };
  activeEnergyBurned?: { kcalSum?: number };
  totalCalories?: { kcalSum?: number };
};

export type Profile = { name?: string; age?: number; membershipStartDate?: CivilDate | string };
export type Identity = { name?: string; healthUserId?: string; legacyUserId?: string };

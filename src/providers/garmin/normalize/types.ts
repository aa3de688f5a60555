// Garmin Health API and Activity API summaries, as partners receive them in pings (pulled from
// the callback URL) and pushes. Garmin's reference is given to approved partners only; these
// shapes follow the public integrations and real captures listed in
// ../shared/reference/providers-3.md §2 [C]. Every field is optional: Garmin omits what a
// device did not record, and a normalizer must survive any of them missing.
// Units are in the field names (…InSeconds, …InMeters, …InBeatsPerMinute, …Kilocalories);
// times are UTC epoch seconds with a separate offset of the device's displayed clock.

/** `{"<offset seconds from the summary start>": value}`. */
export type OffsetSeries = Readonly<Record<string, number | null>>;

type Summary = {
  userId?: string;
  summaryId?: string;
  calendarDate?: string;
  startTimeInSeconds?: number;
  startTimeOffsetInSeconds?: number | null;
  durationInSeconds?: number;
};

export type GarminDaily = Summary & {
  activityType?: string;
  activeKilocalories?: number;
  bmrKilocalories?: number;
  steps?: number;
  distanceInMeters?: number;
  activeTimeInSeconds?: number;
  moderateIntensityDurationInSeconds?: number;
  vigorousIntensityDurationInSeconds?: number;
  floorsClimbed?: number;
  minHeartRateInBeatsPerMinute?: number;
  maxHeartRateInBeatsPerMinute?: number;
  /** A 7-day average, not the day's (providers-3.md §8). */
  averageHeartRateInBeatsPerMinute?: number;
  restingHeartRateInBeatsPerMinute?: number;
  timeOffsetHeartRateSamples?: OffsetSeries;
  averageStressLevel?: number;
  maxStressLevel?: number;
  stressDurationInSeconds?: number;
  restStressDurationInSeconds?: number;
  activityStressDurationInSeconds?: number;
  lowStressDurationInSeconds?: number;
  mediumStressDurationInSeconds?: number;
  highStressDurationInSeconds?: number;
  stressQualifier?: string;
  stepsGoal?: number;
  bodyBatteryChargedValue?: number;
  bodyBatteryDrainedValue?: number;
};

export type GarminEpoch = Summary & {
  activityType?: string;
  activeKilocalories?: number;
  steps?: number;
  distanceInMeters?: number;
  activeTimeInSeconds?: number;
  met?: number;
  /** SEDENTARY | ACTIVE | HIGHLY_ACTIVE */
  intensity?: string;
  meanMotionIntensity?: number;
  maxMotionIntensity?: number;
};

export type GarminStress = Summary & {
  /** Stress 0-100; -1 (off wrist / not enough data) and -2 (too much motion) are not readings. */
  timeOffsetStressLevelValues?: OffsetSeries;
  timeOffsetBodyBatteryValues?: OffsetSeries;
};

export type GarminPulseOx = Summary & { timeOffsetSpo2Values?: OffsetSeries; onDemand?: boolean };

export type GarminRespiration = Summary & { timeOffsetEpochToBreaths?: OffsetSeries };

export type GarminSleepSpan = { startTimeInSeconds?: number; endTimeInSeconds?: number };

export type GarminSleep = Summary & {
  unmeasurableSleepInSeconds?: number;
  deepSleepDurationInSeconds?: number;
  lightSleepDurationInSeconds?: number;
  remSleepInSeconds?: number;
  awakeDurationInSeconds?: number;
  sleepLevelsMap?: Readonly<Record<string, readonly GarminSleepSpan[] | undefined>>;
  /** MANUAL, DEVICE, AUTO_TENTATIVE, AUTO_FINAL, AUTO_MANUAL, ENHANCED_TENTATIVE, ENHANCED_FINAL. */
  validation?: string;
  timeOffsetSleepRespiration?: OffsetSeries;
  timeOffsetSleepSpo2?: OffsetSeries;
  overallSleepScore?: { value?: number; qualifierKey?: string };
  sleepScores?: Readonly<Record<string, { value?: number; qualifierKey?: string } | undefined>>;
};

export type GarminHrv = Summary & {
  lastNightAvg?: number;
  lastNight5MinHigh?: number;
  /** RMSSD (ms) per 5-minute window, keyed by offset from `startTimeInSeconds`. */
  hrvValues?: OffsetSeries;
};

export type GarminBodyComposition = Summary & {
  measurementTimeInSeconds?: number;
  measurementTimeOffsetInSeconds?: number | null;
  muscleMassInGrams?: number;
  boneMassInGrams?: number;
  bodyWaterInPercent?: number;
  bodyFatInPercent?: number;
  bodyMassIndex?: number;
  weightInGrams?: number;
};

export type GarminUserMetrics = Summary & {
  vo2Max?: number;
  vo2MaxCycling?: number;
  fitnessAge?: number;
  enhanced?: boolean;
};

export type GarminActivity = Summary & {
  activityId?: number | string;
  activityName?: string;
  activityType?: string;
  deviceName?: string;
  manual?: boolean;
  isParent?: boolean;
  parentSummaryId?: string;
  averageHeartRateInBeatsPerMinute?: number;
  maxHeartRateInBeatsPerMinute?: number;
  averageSpeedInMetersPerSecond?: number;
  maxSpeedInMetersPerSecond?: number;
  averagePaceInMinutesPerKilometer?: number;
  maxPaceInMinutesPerKilometer?: number;
  activeKilocalories?: number;
  distanceInMeters?: number;
  steps?: number;
  totalElevationGainInMeters?: number;
  totalElevationLossInMeters?: number;
  averageBikeCadenceInRoundsPerMinute?: number;
  maxBikeCadenceInRoundsPerMinute?: number;
  averageRunCadenceInStepsPerMinute?: number;
  maxRunCadenceInStepsPerMinute?: number;
  averageSwimCadenceInStrokesPerMinute?: number;
  averagePowerInWatts?: number;
  maxPowerInWatts?: number;
  numberOfActiveLengths?: number;
  poolLengthInMeters?: number;
  startingLatitudeInDegree?: number;
  startingLongitudeInDegree?: number;
};

export type GarminActivitySample = {
  startTimeInSeconds?: number | null;
  latitudeInDegree?: number | null;
  longitudeInDegree?: number | null;
  elevationInMeters?: number | null;
  heartRate?: number | null;
  speedMetersPerSecond?: number | null;
  stepsPerMinute?: number | null;
  totalDistanceInMeters?: number | null;
  timerDurationInSeconds?: number | null;
  /** Elapsed time since the start, pauses included (Activity API: moving ≤ timer ≤ clock). */
  clockDurationInSeconds?: number | null;
  movingDurationInSeconds?: number | null;
  powerInWatts?: number | null;
  bikeCadenceInRPM?: number | null;
  swimCadenceInStrokesPerMinute?: number | null;
};

export type GarminActivityDetails = {
  userId?: string;
  summaryId?: string;
  activityId?: number | string;
  summary?: GarminActivity;
  samples?: readonly (GarminActivitySample | null)[];
  laps?: readonly { startTimeInSeconds?: number }[];
};

/** A Women's Health menstrual cycle tracking summary (`mct`) [C/?]. */
export type GarminCycle = {
  userId?: string;
  summaryId?: string;
  periodStartDate?: string;
  dayInCycle?: number;
  periodLength?: number;
  currentPhase?: number;
  currentPhaseType?: string;
  lengthOfCurrentPhase?: number;
  daysUntilNextPhase?: number;
  predictedCycleLength?: number;
  isPredictedCycle?: boolean;
  cycleLength?: number;
  fertileWindowStart?: number;
  lengthOfFertileWindow?: number;
  lastUpdatedTimeInSeconds?: number;
};

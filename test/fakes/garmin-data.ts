import { createHash } from 'node:crypto';
import { seeded } from './fake-server.ts';

/**
 * Deterministic Garmin Health / Activity API summaries for any day of an account, shaped as the
 * public integrations and real captures show them (providers-3.md §2): UTC epoch seconds with a
 * separate `startTimeOffsetInSeconds`, units in field names, `{"offset": value}` sample maps,
 * `sleepLevelsMap` spans, `summaryId`s like `x35e229f-63322ef0-8520-6`. A day is a number of
 * days since 1970-01-01 in the user's local calendar. Every summary of day D is uploaded at the
 * user's morning sync on D + 1 (SYNC_HOUR_UTC), which is what pulls by upload window find.
 *
 * Real-world blemishes are part of the data, so the connector meets them every run: a daily heart
 * rate of 255 and of 0 (no reading), stress -1/-2 (not a reading), activity samples without a
 * time and with heart rate 0.
 */
export type GarminUser = {
  seed: string;
  userId: string;
  offsetMinutes: number;
  /** `real`: the sample density a real watch uploads (REAL_VOLUME); light (the default) is sparse. */
  volume?: 'light' | 'real';
};

/**
 * The sample density of a real watch, where the light default thins it out for speed. Sources:
 * daily heart rate at 15 s intervals (the Health API daily summary's `timeOffsetHeartRateSamples`;
 * public integrations bucket its offsets by 15 s, and issue 40's capture shows it); stress and
 * body battery as 3-minute averages, offsets 0, 180, 360 … (Garmin Stress Detail Summary export
 * format, support.mydatahelps.org, samples table); epochs are 15-minute slices, one per activity
 * type in the slice, whose active times add up to the slice (Garmin Epoch Summary export format,
 * same site); activity details at 1 s samples (the watch's every-second recording, issue 40).
 */
export const REAL_VOLUME = {
  heartRateStepSeconds: 15,
  stressStepSeconds: 180,
  epochTypesPerSlice: 2,
  activitySampleSeconds: 1,
} as const;
const LIGHT_VOLUME = {
  heartRateStepSeconds: 900,
  stressStepSeconds: 900,
  epochTypesPerSlice: 1,
  activitySampleSeconds: 15,
} as const;
const volumeOf = (user: GarminUser) => (user.volume === 'real' ? REAL_VOLUME : LIGHT_VOLUME);
type Json = Record<string, unknown>;

export const DAY_SECONDS = 86_400;
export const SYNC_HOUR_UTC = 6;
export const isoDay = (day: number) => new Date(day * DAY_SECONDS * 1000).toISOString().slice(0, 10);
const midnight = (day: number, user: GarminUser) => day * DAY_SECONDS - user.offsetMinutes * 60;
const hex = (value: number) => Math.max(0, Math.floor(value)).toString(16);
const summaryId = (user: GarminUser, start: number, kind: string) =>
  `x${createHash('sha256').update(`${user.seed}|${kind}`).digest('hex').slice(0, 7)}-${hex(start)}`;

/** The upload instant of day D's summaries. */
export const uploadOf = (day: number) => (day + 1) * DAY_SECONDS + SYNC_HOUR_UTC * 3600;

export function dailyOf(user: GarminUser, day: number): Json {
  const r = seeded(`${user.seed}|daily|${day}`);
  const start = midnight(day, user);
  const samples: Record<string, number> = {};
  const step = volumeOf(user).heartRateStepSeconds;
  for (let offset = 0; offset < DAY_SECONDS; offset += step) samples[String(offset)] = r.int(52, 118);
  samples['900'] = 255;
  samples['1800'] = 0;
  const steps = r.int(3000, 15000);
  return {
    userId: user.userId,
    summaryId: `${summaryId(user, start, 'daily')}-8520-6`,
    calendarDate: isoDay(day),
    activityType: 'WALKING',
    activeKilocalories: r.int(200, 900),
    bmrKilocalories: r.int(1500, 1800),
    steps,
    distanceInMeters: Math.round(steps * 0.78),
    durationInSeconds: DAY_SECONDS,
    activeTimeInSeconds: r.int(3000, 9000),
    startTimeInSeconds: start,
    startTimeOffsetInSeconds: user.offsetMinutes * 60,
    moderateIntensityDurationInSeconds: r.int(600, 2400),
    vigorousIntensityDurationInSeconds: r.int(0, 1800),
    floorsClimbed: r.int(0, 20),
    minHeartRateInBeatsPerMinute: 52,
    maxHeartRateInBeatsPerMinute: 118,
    averageHeartRateInBeatsPerMinute: 64,
    restingHeartRateInBeatsPerMinute: r.int(50, 60),
    timeOffsetHeartRateSamples: samples,
    averageStressLevel: r.int(20, 45),
    maxStressLevel: r.int(70, 95),
    stressDurationInSeconds: r.int(10_000, 20_000),
    restStressDurationInSeconds: r.int(20_000, 30_000),
    activityStressDurationInSeconds: r.int(3000, 8000),
    lowStressDurationInSeconds: r.int(5000, 9000),
    mediumStressDurationInSeconds: r.int(2000, 5000),
    highStressDurationInSeconds: r.int(0, 2000),
    stressQualifier: r.pick(['calm', 'balanced', 'stressful']),
    stepsGoal: 10_000,
    bodyBatteryChargedValue: r.int(30, 70),
    bodyBatteryDrainedValue: r.int(30, 70),
  };
}

export function epochsOf(user: GarminUser, day: number): Json[] {
  const r = seeded(`${user.seed}|epochs|${day}`);
  const start = midnight(day, user);
  const volume = volumeOf(user);
  const epochs: Json[] = [];
  // Light: waking hours only, one epoch a slice. Real: the whole day, a sedentary epoch and an
  // active one per slice sharing its 900 s.
  const [from, to] = volume.epochTypesPerSlice > 1 ? [0, DAY_SECONDS] : [7 * 3600, 22 * 3600];
  for (let offset = from; offset < to; offset += 900) {
    const steps = r.int(0, 1500);
    const types = volume.epochTypesPerSlice > 1 ? ['SEDENTARY', steps > 800 ? 'WALKING' : 'GENERIC'] : [null];
    const activeSplit = volume.epochTypesPerSlice > 1 ? r.int(0, 900) : 0;
    types.forEach((type, index) => {
      const part = type === null ? steps : index === 0 ? 0 : steps;
      epochs.push({
        userId: user.userId,
        summaryId: `${summaryId(user, start + offset, 'epoch')}-${type === null ? 3 : index}`,
        activityType: type ?? (steps > 800 ? 'WALKING' : 'SEDENTARY'),
        activeKilocalories: r.int(0, 40),
        steps: part,
        distanceInMeters: Math.round(part * 0.78),
        durationInSeconds: 900,
        activeTimeInSeconds:
          type === null ? (steps > 0 ? r.int(60, 900) : 0) : index === 0 ? 900 - activeSplit : activeSplit,
        startTimeInSeconds: start + offset,
        startTimeOffsetInSeconds: user.offsetMinutes * 60,
        met: Number(r.between(1, 6).toFixed(2)),
        intensity: part > 1200 ? 'HIGHLY_ACTIVE' : part > 300 ? 'ACTIVE' : 'SEDENTARY',
        meanMotionIntensity: Number(r.between(0, 4).toFixed(2)),
        maxMotionIntensity: Number(r.between(4, 7).toFixed(2)),
      });
    });
  }
  return epochs;
}

export function stressOf(user: GarminUser, day: number): Json {
  const r = seeded(`${user.seed}|stress|${day}`);
  const start = midnight(day, user);
  const stress: Record<string, number> = {};
  const battery: Record<string, number> = {};
  for (let offset = 0; offset < DAY_SECONDS; offset += volumeOf(user).stressStepSeconds) {
    stress[String(offset)] = r.int(5, 80);
    battery[String(offset)] = r.int(10, 100);
  }
  stress['0'] = -1;
  stress[String(volumeOf(user).stressStepSeconds)] = -2;
  return {
    userId: user.userId,
    summaryId: `${summaryId(user, start, 'stress')}-stress`,
    calendarDate: isoDay(day),
    startTimeInSeconds: start,
    startTimeOffsetInSeconds: user.offsetMinutes * 60,
    durationInSeconds: DAY_SECONDS,
    timeOffsetStressLevelValues: stress,
    timeOffsetBodyBatteryValues: battery,
  };
}

/** The night that ends on the morning of `day` (Garmin files it under that calendar date). */
export function sleepOf(user: GarminUser, day: number): Json {
  const r = seeded(`${user.seed}|sleep|${day}`);
  const start = midnight(day, user) - r.int(60, 120) * 60;
  const levels: Record<string, { startTimeInSeconds: number; endTimeInSeconds: number }[]> = {
    light: [],
    deep: [],
    rem: [],
    awake: [],
  };
  const order = ['light', 'deep', 'light', 'rem', 'awake', 'light', 'deep', 'rem', 'light'] as const;
  const totals: Record<string, number> = { light: 0, deep: 0, rem: 0, awake: 0 };
  let at = start;
  for (const level of order) {
    const length = level === 'awake' ? r.int(2, 6) * 60 : r.int(30, 70) * 60;
    levels[level]?.push({ startTimeInSeconds: at, endTimeInSeconds: at + length });
    totals[level] = (totals[level] ?? 0) + length;
    at += length;
  }
  const breaths: Record<string, number> = {};
  const spo2: Record<string, number> = {};
  for (let offset = 0; offset < at - start; offset += 600) {
    breaths[String(offset)] = Number(r.between(12, 17).toFixed(1));
    spo2[String(offset)] = r.int(90, 99);
  }
  return {
    userId: user.userId,
    summaryId: `${summaryId(user, start, 'sleep')}-5dc0`,
    calendarDate: isoDay(day),
    durationInSeconds: (totals.light ?? 0) + (totals.deep ?? 0) + (totals.rem ?? 0),
    startTimeInSeconds: start,
    startTimeOffsetInSeconds: user.offsetMinutes * 60,
    unmeasurableSleepInSeconds: 0,
    deepSleepDurationInSeconds: totals.deep,
    lightSleepDurationInSeconds: totals.light,
    remSleepInSeconds: totals.rem,
    awakeDurationInSeconds: totals.awake,
    sleepLevelsMap: levels,
    validation: 'ENHANCED_FINAL',
    timeOffsetSleepRespiration: breaths,
    timeOffsetSleepSpo2: spo2,
    overallSleepScore: { value: r.int(55, 95), qualifierKey: 'GOOD' },
    sleepScores: {
      totalDuration: { qualifierKey: 'GOOD' },
      remPercentage: { value: 21, qualifierKey: 'GOOD' },
    },
  };
}

export function hrvOf(user: GarminUser, day: number): Json {
  const r = seeded(`${user.seed}|hrv|${day}`);
  const sleep = sleepOf(user, day);
  const start = sleep.startTimeInSeconds as number;
  const values: Record<string, number> = {};
  for (let offset = 300; offset < 5 * 3600; offset += 300) values[String(offset)] = r.int(25, 70);
  return {
    userId: user.userId,
    summaryId: `${summaryId(user, start, 'hrv')}-hrv`,
    calendarDate: isoDay(day),
    lastNightAvg: r.int(35, 55),
    lastNight5MinHigh: r.int(60, 80),
    startTimeOffsetInSeconds: user.offsetMinutes * 60,
    durationInSeconds: 5 * 3600,
    startTimeInSeconds: start,
    hrvValues: values,
  };
}

export function respirationOf(user: GarminUser, day: number): Json {
  const r = seeded(`${user.seed}|respiration|${day}`);
  const start = midnight(day, user);
  const values: Record<string, number> = {};
  for (let offset = 0; offset < DAY_SECONDS; offset += 3600)
    values[String(offset)] = Number(r.between(11, 19).toFixed(2));
  return {
    userId: user.userId,
    summaryId: `${summaryId(user, start, 'resp')}-resp`,
    startTimeInSeconds: start,
    durationInSeconds: DAY_SECONDS,
    startTimeOffsetInSeconds: user.offsetMinutes * 60,
    timeOffsetEpochToBreaths: values,
  };
}

export function pulseOxOf(user: GarminUser, day: number): Json {
  const r = seeded(`${user.seed}|pulseox|${day}`);
  const start = midnight(day, user) + 2 * 3600;
  const values: Record<string, number> = {};
  for (let offset = 0; offset < 3 * 3600; offset += 60 * 15) values[String(offset)] = r.int(91, 99);
  return {
    userId: user.userId,
    summaryId: `${summaryId(user, start, 'pulseox')}-ox`,
    calendarDate: isoDay(day),
    startTimeInSeconds: start,
    durationInSeconds: 3 * 3600,
    startTimeOffsetInSeconds: user.offsetMinutes * 60,
    timeOffsetSpo2Values: values,
    onDemand: false,
  };
}

/** A weigh-in every third day. */
export function bodyCompsOf(user: GarminUser, day: number): Json[] {
  if (day % 3 !== 0) return [];
  const r = seeded(`${user.seed}|body|${day}`);
  const at = midnight(day, user) + 7 * 3600;
  return [
    {
      userId: user.userId,
      summaryId: `${summaryId(user, at, 'body')}-body`,
      measurementTimeInSeconds: at,
      measurementTimeOffsetInSeconds: user.offsetMinutes * 60,
      muscleMassInGrams: r.int(30_000, 36_000),
      boneMassInGrams: r.int(2900, 3300),
      bodyWaterInPercent: Number(r.between(52, 60).toFixed(1)),
      bodyFatInPercent: Number(r.between(16, 24).toFixed(1)),
      bodyMassIndex: Number(r.between(21, 25).toFixed(1)),
      weightInGrams: r.int(68_000, 76_000),
    },
  ];
}

export function userMetricsOf(user: GarminUser, day: number): Json {
  const r = seeded(`${user.seed}|metrics|${day}`);
  return {
    userId: user.userId,
    summaryId: `${summaryId(user, midnight(day, user), 'metrics')}-um`,
    calendarDate: isoDay(day),
    vo2Max: Number(r.between(44, 52).toFixed(1)),
    vo2MaxCycling: Number(r.between(42, 50).toFixed(1)),
    fitnessAge: r.int(28, 40),
    enhanced: true,
  };
}

const SPORTS = ['RUNNING', 'CYCLING', 'LAP_SWIMMING', 'STRENGTH_TRAINING', 'TRAIL_RUNNING', 'STREET_RUNNING'];

/** Every other day has a workout (index 0); `extra` adds workouts recorded later (a sync now). */
export function activitiesOf(user: GarminUser, day: number, extra = 0): Json[] {
  const out: Json[] = [];
  // Every other day has a workout of its own (index 0); the `extra` ones a sync brings are 1, 2, …
  // whatever the day, so a test can tell them apart on any date.
  const indexes = [...(day % 2 === 0 ? [0] : []), ...Array.from({ length: extra }, (_, n) => n + 1)];
  for (const index of indexes) {
    const r = seeded(`${user.seed}|activity|${day}|${index}`);
    const start = midnight(day, user) + (7 + index * 3) * 3600 + r.int(0, 3000);
    const duration = r.int(25, 60) * 60;
    const sport = r.pick(SPORTS);
    const distance = sport === 'STRENGTH_TRAINING' ? 0 : r.int(4000, 20_000);
    out.push({
      userId: user.userId,
      summaryId: `${5_000_000_000 + day * 10 + index}`,
      activityId: 5_000_000_000 + day * 10 + index,
      activityName: `${sport.toLowerCase().replace(/_/g, ' ')} ${index + 1}`,
      activityType: sport,
      deviceName: 'forerunner965',
      durationInSeconds: duration,
      startTimeInSeconds: start,
      startTimeOffsetInSeconds: user.offsetMinutes * 60,
      averageHeartRateInBeatsPerMinute: r.int(120, 160),
      activeKilocalories: r.int(200, 700),
      distanceInMeters: distance,
      ...(distance > 0
        ? {
            averageSpeedInMetersPerSecond: Number((distance / duration).toFixed(3)),
            totalElevationGainInMeters: r.int(10, 200),
            totalElevationLossInMeters: r.int(10, 200),
            startingLatitudeInDegree: 51.5 + r.between(-0.01, 0.01),
            startingLongitudeInDegree: -0.12 + r.between(-0.01, 0.01),
          }
        : {}),
      ...(sport === 'LAP_SWIMMING' ? { numberOfActiveLengths: r.int(20, 60), poolLengthInMeters: 25 } : {}),
    });
  }
  return out;
}

/** Seconds the watch stood paused halfway through a workout: its timer stopped, the clock did not. */
export const PAUSE_SECONDS = 300;

/**
 * The activity with its samples every 15 s of timer time (one without a time, some heart rates
 * of 0) and a pause halfway: `durationInSeconds` is timer time, so the last samples lie after
 * start + duration, at start + their `clockDurationInSeconds` (Activity API: timer ≤ clock).
 */
export function activityDetailsOf(activity: Json, user?: GarminUser): Json {
  const step = user ? volumeOf(user).activitySampleSeconds : LIGHT_VOLUME.activitySampleSeconds;
  const r = seeded(`details|${String(activity.summaryId)}`);
  const start = activity.startTimeInSeconds as number;
  const duration = activity.durationInSeconds as number;
  const distance = (activity.distanceInMeters as number) ?? 0;
  const samples: Json[] = [];
  for (let offset = 0; offset <= duration; offset += step) {
    const clock = offset > duration / 2 ? offset + PAUSE_SECONDS : offset;
    samples.push({
      startTimeInSeconds: start + clock,
      ...(distance > 0
        ? {
            latitudeInDegree: 51.5 + offset * 0.00001,
            longitudeInDegree: -0.12 + offset * 0.00001,
            elevationInMeters: 20 + r.between(0, 30),
            speedMetersPerSecond: Number(r.between(2, 5).toFixed(2)),
            totalDistanceInMeters: Math.round((distance * offset) / duration),
            stepsPerMinute: r.int(150, 180),
          }
        : {}),
      heartRate: offset === 2 * step ? 0 : r.int(110, 175),
      timerDurationInSeconds: offset,
      clockDurationInSeconds: clock,
      movingDurationInSeconds: offset,
    });
  }
  samples.splice(3, 0, { startTimeInSeconds: null, heartRate: 140 });
  return {
    userId: activity.userId,
    summaryId: `${String(activity.summaryId)}-detail`,
    activityId: activity.activityId,
    summary: { ...activity, userId: undefined },
    samples,
  };
}

/** The cycle of `day`: 28-day cycles with a 5-day period, anchored per account. */
export function cycleOf(user: GarminUser, day: number) {
  const anchor = seeded(`${user.seed}|cycle`).int(0, 27);
  const dayInCycle = ((((day - anchor) % 28) + 28) % 28) + 1;
  return { dayInCycle, periodStart: day - dayInCycle + 1 };
}

/** A Women's Health cycle tracking summary (`mct`) as of `day`, updated that evening. */
export function mctOf(user: GarminUser, day: number): Json {
  const { dayInCycle, periodStart } = cycleOf(user, day);
  const phases: [string, number, number][] = [
    ['MENSTRUAL', 1, 5],
    ['FOLLICULAR', 6, 11],
    ['FERTILE', 12, 13],
    ['OVULATION', 14, 14],
    ['LUTEAL', 15, 28],
  ];
  const [phase, first, last] = phases.find(([, from, to]) => dayInCycle >= from && dayInCycle <= to)!;
  return {
    userId: user.userId,
    summaryId: `${summaryId(user, periodStart * DAY_SECONDS, 'mct')}-${dayInCycle}`,
    periodStartDate: isoDay(periodStart),
    dayInCycle,
    periodLength: 5,
    currentPhase: phases.findIndex(([name]) => name === phase) + 1,
    currentPhaseType: phase,
    lengthOfCurrentPhase: last - first + 1,
    daysUntilNextPhase: last - dayInCycle + 1,
    predictedCycleLength: 28,
    isPredictedCycle: false,
    cycleLength: 28,
    fertileWindowStart: 10,
    lengthOfFertileWindow: 6,
    lastUpdatedTimeInSeconds: midnight(day, user) + 20 * 3600,
  };
}

/**
 * Normalizer throughput: large synthetic batches shaped like each provider's payloads, normalized
 * with the provider tables, counted in output samples (every element of a record's sample arrays,
 * as listed by the model's `samplePaths`, laps included) plus the records themselves for
 * summary-only providers. Prints samples/s per provider and overall; the goal is >= 100,000.
 *
 *   node_modules/.bin/node bench/normalize.ts [runs]
 */
import { samplePaths } from '../src/model/index.ts';
import type {
  OuraDailyActivity,
  OuraHeartRateRow,
  OuraSleepPeriod,
} from '../src/providers/oura/normalize/index.ts';
import { ouraNormalizers } from '../src/providers/oura/normalize/index.ts';
import type { NormalizeContext } from '../src/provider-kit/normalize/normalize.ts';
import type {
  StravaActivity,
  StravaStreamSet,
  StravaZones,
} from '../src/providers/strava/normalize/index.ts';
import { stravaNormalizers } from '../src/providers/strava/normalize/index.ts';
import type {
  WhoopCycle,
  WhoopRecovery,
  WhoopSleep,
  WhoopWorkout,
} from '../src/providers/whoop/normalize/index.ts';
import { whoopNormalizers } from '../src/providers/whoop/normalize/index.ts';
import { documentsOf, type OuraUser } from '../test/fakes/oura-data.ts';
import { recordsOf, type WhoopUser } from '../test/fakes/whoop-data.ts';

const runs = Number(process.argv[2] ?? 5);
const DAY_MS = 86_400_000;
const FIRST_DAY = Math.floor(Date.parse('2024-01-01T00:00:00Z') / DAY_MS);

/** Elements of every sample array of `record` (per the model's registry of sample paths). */
function countSamples(record: unknown, paths: readonly string[]): number {
  let count = 0;
  for (const path of paths) {
    let node: unknown = record;
    for (const key of path.split('.'))
      node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    if (Array.isArray(node)) count += node.length;
  }
  return count;
}

// --- Strava: activities with 10,000-point streams ---------------------------------------------

function stravaBatch(activities: number, points: number) {
  const batch = [];
  for (let index = 0; index < activities; index++) {
    const time = Array.from({ length: points }, (_, second) => second);
    const streams: StravaStreamSet = {
      time: { data: time },
      distance: { data: time.map((second) => second * 3.1) },
      latlng: { data: time.map((second) => [37.8 + second / 1e5, -122.26 + second / 2e5]) },
      altitude: { data: time.map((second) => 20 + Math.sin(second / 300) * 15) },
      velocity_smooth: { data: time.map((second) => 3 + Math.sin(second / 60) * 0.4) },
      heartrate: { data: time.map((second) => 120 + Math.round(Math.sin(second / 120) * 30)) },
      cadence: { data: time.map((second) => 85 + (second % 7)) },
      watts: { data: time.map((second) => 180 + (second % 50)) },
    };
    const activity: StravaActivity = {
      id: 9_000_000_000 + index,
      name: `Ride ${index}`,
      distance: points * 3.1,
      moving_time: points - 30,
      elapsed_time: points,
      sport_type: 'Ride',
      start_date: new Date((FIRST_DAY + index) * DAY_MS + 7 * 3_600_000).toISOString(),
      utc_offset: -28_800,
      average_speed: 3.1,
      max_speed: 4,
      average_heartrate: 130,
      max_heartrate: 178,
    };
    batch.push({ activity, streams });
  }
  return batch;
}

const zones: StravaZones = {
  heart_rate: {
    zones: [
      { min: 0, max: 123 },
      { min: 123, max: 153 },
      { min: 153, max: 169 },
      { min: 169, max: 184 },
      { min: 184, max: -1 },
    ],
  },
};

// --- Oura: a year of days with dense heart rate, sleep hypnograms, MET and activity levels -----

function ouraBatch(days: number) {
  const user: OuraUser = { seed: 'bench', offsetMinutes: 60 };
  const dailyActivity: OuraDailyActivity[] = [];
  const sleep: OuraSleepPeriod[] = [];
  const heartrate: OuraHeartRateRow[] = [];
  for (let day = FIRST_DAY; day < FIRST_DAY + days; day++) {
    dailyActivity.push(...(documentsOf('daily_activity', user, day) as unknown as OuraDailyActivity[]));
    sleep.push(...(documentsOf('sleep', user, day) as unknown as OuraSleepPeriod[]));
    // Awake/workout heart rate every 10 s, as recorded rows show during activity.
    const start = day * DAY_MS - 60 * 60_000;
    for (let at = start; at < start + DAY_MS; at += 10_000) {
      heartrate.push({
        bpm: 60 + (at % 47),
        source: 'awake',
        timestamp: `${new Date(at).toISOString().slice(0, 19)}+00:00`,
        timestamp_unix: at,
      });
    }
  }
  return { dailyActivity, sleep, heartrate };
}

// --- WHOOP: collections of cycles, sleeps, recoveries and workouts -----------------------------

function whoopBatch(days: number) {
  const user: WhoopUser = { seed: 'bench', userId: 10129, offsetMinutes: -300 };
  const cycle: WhoopCycle[] = [];
  const sleep: WhoopSleep[] = [];
  const recovery: WhoopRecovery[] = [];
  const workout: WhoopWorkout[] = [];
  const now = (FIRST_DAY + days + 2) * DAY_MS;
  for (let day = FIRST_DAY; day < FIRST_DAY + days; day++) {
    const records = recordsOf(user, day, now);
    if (!records) continue;
    cycle.push(records.cycle as unknown as WhoopCycle);
    sleep.push(records.sleep as unknown as WhoopSleep);
    recovery.push(records.recovery as unknown as WhoopRecovery);
    workout.push(...(records.workouts as unknown as WhoopWorkout[]));
  }
  return { cycle, sleep, recovery, workout };
}

type Job = { provider: string; label: string; run(): number };

const context: NormalizeContext = { userOffsetMinutes: null, now: (FIRST_DAY + 10) * DAY_MS };
const strava = stravaBatch(20, 10_000);
const oura = ouraBatch(60);
const whoop = whoopBatch(3_000);

const jobs: Job[] = [
  {
    provider: 'strava',
    label: '20 activities x 10,000-point streams (+ zones)',
    run: () =>
      strava.reduce((total, payload) => {
        const [record] = stravaNormalizers.activity.normalize({ ...payload, athlete_zones: zones }, context);
        return total + countSamples(record, samplePaths.activity);
      }, 0),
  },
  {
    provider: 'oura',
    label: `60 days: daily (+ ${oura.heartrate.length.toLocaleString('en')} HR rows), sleep, body`,
    run: () => {
      let total = 0;
      for (const record of ouraNormalizers.daily_activity.normalize(
        { daily_activity: oura.dailyActivity, heartrate: oura.heartrate },
        context,
      )) {
        total += countSamples(record, samplePaths.daily);
      }
      for (const record of ouraNormalizers.sleep.normalize({ sleep: oura.sleep }, context))
        total += countSamples(record, samplePaths.sleep);
      for (const record of ouraNormalizers.heartrate.normalize({ heartrate: oura.heartrate }, context))
        total += countSamples(record, samplePaths.body);
      return total;
    },
  },
  {
    provider: 'whoop',
    label: `3,000 days: cycles, sleeps, recoveries, ${whoop.workout.length.toLocaleString('en')} workouts (records + zones)`,
    run: () => {
      let total = 0;
      const daily = whoopNormalizers.cycle.normalize(
        { cycle: whoop.cycle, recovery: whoop.recovery, sleep: whoop.sleep },
        context,
      );
      const sleeps = whoopNormalizers.sleep.normalize(
        { sleep: whoop.sleep, recovery: whoop.recovery },
        context,
      );
      const workouts = whoopNormalizers.workout.normalize({ workout: whoop.workout }, context);
      const bodies = whoopNormalizers.recovery.normalize(
        { recovery: whoop.recovery, sleep: whoop.sleep },
        context,
      );
      // WHOOP is summary data: each record counts as one sample, plus its zone entries and body readings.
      total += daily.length + sleeps.length + workouts.length + bodies.length;
      for (const record of workouts) total += record.heart_rate_data?.summary?.hr_zone_data?.length ?? 0;
      for (const record of bodies) total += countSamples(record, samplePaths.body);
      return total;
    },
  },
];

// ============================================================================================
// Polar / Withings / Dexcom: payloads from their fakes' generators (test/fakes/*-data.ts), i.e.
// shaped exactly like the providers' documents, normalized through the provider tables.
// ============================================================================================

// Loaded here rather than at the top so this block stays self-contained.
const { polarNormalizers } = await import('../src/providers/polar/normalize/index.ts');
const { withingsNormalizers } = await import('../src/providers/withings/normalize/index.ts');
const { dexcomNormalizers } = await import('../src/providers/dexcom/normalize/index.ts');
const polarData = await import('../test/fakes/polar-data.ts');
const withingsData = await import('../test/fakes/withings-data.ts');
const { deviceOf, egvsBetween, eventsBetween } = await import('../test/fakes/dexcom-data.ts');

function secondBatch(): Job[] {
  const polarUser = { seed: 'bench', polarUserId: 4242, offsetMinutes: 120 };
  const polarDays = Array.from({ length: 30 }, (_, index) => FIRST_DAY + index);
  const polar = {
    exercise: polarDays.flatMap((day) =>
      polarData.exercisesOf(polarUser, day, { samples: true, zones: true, route: true }),
    ),
    activity_summary: polarDays.map((day) =>
      polarData.activityOf(polarUser, day, { steps: true, zones: true, stamps: true }),
    ),
    continuous_heart_rate: polarDays.map((day) => polarData.continuousHeartRateOf(polarUser, day)),
    sleep: polarDays.map((day) => polarData.nightOf(polarUser, day)),
    nightly_recharge: polarDays.map((day) => polarData.rechargeOf(polarUser, day)),
  } as never as {
    exercise: Parameters<typeof polarNormalizers.exercise.normalize>[0]['exercise'];
    activity_summary: Parameters<typeof polarNormalizers.activity_summary.normalize>[0]['activity_summary'];
    continuous_heart_rate: Parameters<
      typeof polarNormalizers.activity_summary.normalize
    >[0]['continuous_heart_rate'];
    sleep: Parameters<typeof polarNormalizers.sleep.normalize>[0]['sleep'];
    nightly_recharge: Parameters<typeof polarNormalizers.sleep.normalize>[0]['nightly_recharge'];
  };

  const withingsUser = { seed: 'bench', userid: 77, timezone: 'Europe/Paris', offsetMinutes: 60 };
  const withingsDays = Array.from({ length: 60 }, (_, index) => FIRST_DAY + index);
  const intraday: Record<string, unknown> = {};
  for (const day of withingsDays)
    for (const [start, point] of withingsData.intradayOf(withingsUser, day)) intraday[start] = point;
  const nights = withingsDays.map((day) => withingsData.nightOf(withingsUser, day));
  const heart = withingsDays.flatMap((day) => withingsData.heartOf(withingsUser, day));
  const withings = {
    measure: {
      timezone: 'Europe/Paris',
      measuregrps: withingsDays.flatMap((day) => withingsData.measureGroupsOf(withingsUser, day)),
    },
    heart: { series: heart },
    heart_signal: Object.fromEntries(
      heart.map((entry) => {
        const id = (entry.ecg as { signalid: number }).signalid;
        return [String(id), withingsData.signalOf(withingsUser, id)];
      }),
    ),
    activity: { activities: withingsDays.map((day) => withingsData.activityOf(withingsUser, day)) },
    intraday_activity: { series: intraday },
    sleep_summary: { series: nights.map((night) => night.summary) },
    sleep: { series: nights.flatMap((night) => night.segments) },
  } as never as Parameters<typeof withingsNormalizers.measure.normalize>[0] &
    Parameters<typeof withingsNormalizers.activity.normalize>[0] &
    Parameters<typeof withingsNormalizers.sleep_summary.normalize>[0];

  const dexcomUser: Parameters<typeof egvsBetween>[0] = {
    seed: 'bench',
    userId: 'bench',
    offsetMinutes: -420,
    displayDevice: 'iOS',
    transmitterId: 'ABC123',
    transmitterGeneration: 'g7',
    sinceMs: FIRST_DAY * DAY_MS,
  };
  const dexcomEnd = (FIRST_DAY + 90) * DAY_MS;
  const dexcom = {
    egvs: egvsBetween(dexcomUser, FIRST_DAY * DAY_MS, dexcomEnd),
    events: eventsBetween(dexcomUser, FIRST_DAY * DAY_MS, dexcomEnd),
    devices: [deviceOf(dexcomUser, dexcomEnd)],
  } as never as Parameters<typeof dexcomNormalizers.egvs.normalize>[0];

  const sum = (records: readonly unknown[], paths: readonly string[]) =>
    records.reduce<number>((total, record) => total + countSamples(record, paths), 0);
  return [
    {
      provider: 'polar',
      label: `30 days: ${polar.exercise.length} exercises (samples, zones, route), daily + continuous HR, sleep + recharge`,
      run: () =>
        sum(
          polarNormalizers.exercise.normalize({ exercise: polar.exercise }, context),
          samplePaths.activity,
        ) +
        sum(polarNormalizers.activity_summary.normalize(polar, context), samplePaths.daily) +
        sum(polarNormalizers.sleep.normalize(polar, context), samplePaths.sleep),
    },
    {
      provider: 'withings',
      label: `60 days: getmeas + ECG signals, getactivity + intraday, sleep summary + states`,
      run: () =>
        sum(withingsNormalizers.measure.normalize(withings, context), samplePaths.body) +
        sum(withingsNormalizers.activity.normalize(withings, context), samplePaths.daily) +
        sum(withingsNormalizers.sleep_summary.normalize(withings, context), samplePaths.sleep),
    },
    {
      provider: 'dexcom',
      label: `90 days: ${dexcom.egvs.length.toLocaleString('en')} EGVs + events + device -> glucose days`,
      run: () => sum(dexcomNormalizers.egvs.normalize(dexcom, context), samplePaths.body),
    },
  ];
}
jobs.push(...secondBatch());

// ============================================================================================
// Garmin / Fitbit (Google Health API): payloads from their fakes' generators
// (test/fakes/garmin-data.ts, test/fakes/google-health-data.ts), normalized through the tables.
// ============================================================================================

const { garminNormalizers } = await import('../src/providers/garmin/normalize/index.ts');
const { fitbitNormalizers, fitbitNutrition } = await import('../src/providers/fitbit/normalize/index.ts');
const garminData = await import('../test/fakes/garmin-data.ts');
const googleData = await import('../test/fakes/google-health-data.ts');

function garminFitbitBatch(): Job[] {
  const garminUser = { seed: 'bench', userId: 'bench-user', offsetMinutes: 60 };
  const days = Array.from({ length: 90 }, (_, index) => FIRST_DAY + index);
  const activities = days.flatMap((day) => garminData.activitiesOf(garminUser, day));
  const garmin = {
    dailies: days.map((day) => garminData.dailyOf(garminUser, day)),
    epochs: days.flatMap((day) => garminData.epochsOf(garminUser, day)),
    stressDetails: days.map((day) => garminData.stressOf(garminUser, day)),
    pulseox: days.map((day) => garminData.pulseOxOf(garminUser, day)),
    sleeps: days.map((day) => garminData.sleepOf(garminUser, day)),
    hrv: days.map((day) => garminData.hrvOf(garminUser, day)),
    allDayRespiration: days.map((day) => garminData.respirationOf(garminUser, day)),
    bodyComps: days.flatMap((day) => garminData.bodyCompsOf(garminUser, day)),
    userMetrics: days.map((day) => garminData.userMetricsOf(garminUser, day)),
    activities,
    activityDetails: activities.map((activity) => garminData.activityDetailsOf(activity)),
  } as never as Parameters<typeof garminNormalizers.dailies.normalize>[0] &
    Parameters<typeof garminNormalizers.sleeps.normalize>[0] &
    Parameters<typeof garminNormalizers.bodyComps.normalize>[0] &
    Parameters<typeof garminNormalizers.activities.normalize>[0];

  const googleUser = { seed: 'bench', offsetMinutes: -300 };
  const points = (type: string) =>
    days.flatMap((day) => googleData.pointsOf(type, googleUser, day).map((entry) => entry.point));
  const google = Object.fromEntries(
    [
      'exercise',
      'heart-rate',
      'sleep',
      'daily-heart-rate-variability',
      'daily-respiratory-rate',
      'daily-sleep-temperature-derivations',
      'steps',
      'distance',
      'floors',
      'active-energy-burned',
      'daily-resting-heart-rate',
      'weight',
      'body-fat',
      'daily-vo2-max',
      'daily-oxygen-saturation',
      'nutrition-log',
      'hydration-log',
    ].map((type) => [type, points(type)]),
  ) as never as Parameters<typeof fitbitNormalizers.exercise.normalize>[0] &
    Parameters<typeof fitbitNormalizers.sleep.normalize>[0] &
    Parameters<typeof fitbitNormalizers.steps.normalize>[0] &
    Parameters<typeof fitbitNormalizers.weight.normalize>[0] &
    Parameters<typeof fitbitNutrition.normalize>[0];

  const sum = (records: readonly unknown[], paths: readonly string[]) =>
    records.reduce<number>((total, record) => total + countSamples(record, paths), 0);
  return [
    {
      provider: 'garmin',
      label: `90 days: dailies + epochs + stress + pulse ox, sleeps + HRV + respiration, body, ${activities.length} activities with details`,
      run: () =>
        sum(garminNormalizers.dailies.normalize(garmin, context), samplePaths.daily) +
        sum(garminNormalizers.sleeps.normalize(garmin, context), samplePaths.sleep) +
        sum(garminNormalizers.bodyComps.normalize(garmin, context), samplePaths.body) +
        sum(garminNormalizers.activities.normalize(garmin, context), samplePaths.activity),
    },
    {
      provider: 'fitbit',
      label: `90 days of Google Health data points: exercise + HR, sleep stages, daily activity + ${(google['heart-rate']?.length ?? 0).toLocaleString('en')} HR samples, body, nutrition`,
      run: () => {
        const nutrition = fitbitNutrition.normalize(google, context);
        return (
          sum(fitbitNormalizers.exercise.normalize(google, context), samplePaths.activity) +
          sum(fitbitNormalizers.sleep.normalize(google, context), samplePaths.sleep) +
          sum(fitbitNormalizers.steps.normalize(google, context), samplePaths.daily) +
          sum(fitbitNormalizers.weight.normalize(google, context), samplePaths.body) +
          // Nutrition has no sample-path registry entry: meals and drinks are its samples.
          nutrition.reduce(
            (total, day) => total + (day.meals?.length ?? 0) + (day.drink_samples?.length ?? 0),
            0,
          )
        );
      },
    },
  ];
}
jobs.push(...garminFitbitBatch());

// ============================================================================================
// Wahoo / Suunto / Concept2: workouts whose samples come from FIT files (Wahoo, Suunto; built
// with Garmin's SDK Encoder, decoded inside the timed normalizer as in production) and results
// with per-stroke data (Concept2).
// ============================================================================================

const { wahooNormalizers } = await import('../src/providers/wahoo/normalize/index.ts');
const { suuntoNormalizers } = await import('../src/providers/suunto/normalize/index.ts');
const { concept2Normalizers } = await import('../src/providers/concept2/normalize/index.ts');
const { buildActivityFit } = await import('../test/fakes/fit-files.ts');

function thirdBatch(): Job[] {
  const workouts = 20;
  const seconds = 2 * 3600;
  const fits = Array.from({ length: workouts }, (_, index) => {
    const startMs = (FIRST_DAY + index) * DAY_MS + 6 * 3_600_000;
    return {
      startMs,
      bytes: buildActivityFit({
        seed: `bench|${index}`,
        startMs,
        durationSeconds: seconds,
        offsetMinutes: 60,
        sport: 'cycling',
        stepSeconds: 1,
      }).bytes,
    };
  });
  const wahoo = fits.map(({ startMs, bytes }, index) => ({
    workout: {
      id: index + 1,
      starts: new Date(startMs).toISOString(),
      workout_type_id: 0,
      workout_summary: {
        id: index + 100,
        distance_accum: '60000.00',
        duration_total_accum: String(seconds),
        duration_active_accum: String(seconds),
        heart_rate_avg: '140.00',
        power_avg: '210.00',
        calories_accum: '1500.00',
      },
    },
    fit: bytes,
  }));
  const suunto = fits.map(({ startMs, bytes }, index) => ({
    workout: {
      workoutKey: `key${index}`,
      activityId: 2,
      startTime: startMs,
      totalTime: seconds,
      timeOffsetInMinutes: 60,
    },
    fit: bytes,
  }));
  const concept2 = Array.from({ length: 100 }, (_, index) => {
    const tenths = 60 * 60 * 10;
    const strokes = [];
    for (let t = 0; t <= tenths; t += 25)
      strokes.push({ t, d: Math.round(t * 4.2), p: 1150 + (t % 90), spm: 24 + (t % 6), hr: 120 + (t % 50) });
    const day = new Date((FIRST_DAY + index) * DAY_MS + 18 * 3_600_000);
    const text = day.toISOString().slice(0, 19).replace('T', ' ');
    return {
      result: {
        id: index + 1,
        date: text,
        date_utc: text,
        timezone: 'Europe/London',
        type: 'rower',
        distance: 15_000,
        time: tenths,
        calories_total: 900,
        stroke_rate: 26,
        stroke_data: true,
        heart_rate: { average: 140 },
      },
      strokes,
    };
  });
  const strokeCount = concept2.reduce((total, item) => total + item.strokes.length, 0);
  const sum = (records: readonly unknown[]) =>
    records.reduce<number>((total, record) => total + countSamples(record, samplePaths.activity), 0);
  return [
    {
      provider: 'wahoo',
      label: `${workouts} workouts x 2 h FIT files at 1 s (decoded with @garmin/fitsdk) + string summaries`,
      run: () => sum(wahoo.flatMap((payload) => wahooNormalizers.workout.normalize(payload, context))),
    },
    {
      provider: 'suunto',
      label: `${workouts} workouts x 2 h FIT exports at 1 s (decoded with @garmin/fitsdk)`,
      run: () => sum(suunto.flatMap((payload) => suuntoNormalizers.workout.normalize(payload, context))),
    },
    {
      provider: 'concept2',
      label: `100 one-hour results with ${strokeCount.toLocaleString('en')} strokes`,
      run: () => sum(concept2.flatMap((payload) => concept2Normalizers.result.normalize(payload, context))),
    },
  ];
}
jobs.push(...thirdBatch());
// ============================================================================================

const results = new Map<string, { samples: number; ms: number }>();
for (const job of jobs) {
  job.run(); // warm-up: JIT and the time module's caches
  const times: number[] = [];
  let samples = 0;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    samples = job.run();
    times.push(performance.now() - started);
  }
  const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0;
  results.set(job.provider, { samples, ms: median });
  const rate = samples / (median / 1000);
  console.log(
    `${job.provider.padEnd(8)} ${job.label}\n        ${samples.toLocaleString('en')} samples in ${median.toFixed(1)} ms (median of ${runs}) = ${Math.round(rate).toLocaleString('en')} samples/s`,
  );
}
const totals = [...results.values()].reduce(
  (sum, { samples, ms }) => ({ samples: sum.samples + samples, ms: sum.ms + ms }),
  { samples: 0, ms: 0 },
);
const overall = totals.samples / (totals.ms / 1000);
console.log(
  `overall ${totals.samples.toLocaleString('en')} samples in ${totals.ms.toFixed(1)} ms = ${Math.round(overall).toLocaleString('en')} samples/s (goal >= 100,000)`,
);

import { seeded } from './fake-server.ts';

/**
 * Deterministic Google Health API v4 data points (Fitbit / Pixel Watch data) for any local day of
 * a user, shaped as the v4 reference describes them (providers.md §10): RFC 3339 UTC instants with
 * separate `…UtcOffset` Durations ("3600s") and civil times, int64 fields as strings, resource
 * names `users/me/dataTypes/{type}/dataPoints/{id}`, daily types keyed by a civil `date`.
 * Real-world blemishes are kept: a heart rate of 0 (no reading) every day, and steps counted twice
 * on some hours, by the watch and by the phone in the pocket (`source: 'phone'`): the raw list holds
 * both, the reconciled stream (and so every rollup) only one.
 */
export type GoogleHealthUser = { seed: string; offsetMinutes: number };
type Json = Record<string, unknown>;
/** A data point with what the fake filters on: its start (or sample) and end instants, its local date. */
export type Point = { atMs: number; endMs?: number; date: string; point: Json; source?: 'phone' };

const DAY_MS = 86_400_000;
export const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const civilDate = (day: number) => {
  const [year, month, date] = isoDay(day).split('-').map(Number);
  return { year, month, day: date };
};
const offsetText = (user: GoogleHealthUser) => `${user.offsetMinutes * 60}s`;
const midnight = (day: number, user: GoogleHealthUser) => day * DAY_MS - user.offsetMinutes * 60_000;
const instant = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const civil = (ms: number, user: GoogleHealthUser) => {
  const local = new Date(ms + user.offsetMinutes * 60_000);
  return {
    date: { year: local.getUTCFullYear(), month: local.getUTCMonth() + 1, day: local.getUTCDate() },
    time: { hours: local.getUTCHours(), minutes: local.getUTCMinutes(), seconds: local.getUTCSeconds() },
  };
};
const interval = (startMs: number, endMs: number, user: GoogleHealthUser) => ({
  startTime: instant(startMs),
  startUtcOffset: offsetText(user),
  endTime: instant(endMs),
  endUtcOffset: offsetText(user),
  civilStartTime: civil(startMs, user),
  civilEndTime: civil(endMs, user),
});
const sampleTime = (ms: number, user: GoogleHealthUser) => ({
  physicalTime: instant(ms),
  utcOffset: offsetText(user),
  civilTime: civil(ms, user),
});
const name = (type: string, id: string) => `users/me/dataTypes/${type}/dataPoints/${id}`;
const source = {
  recordingMethod: 'PASSIVELY_MEASURED',
  device: { manufacturer: 'Google', displayName: 'Pixel Watch 3', formFactor: 'WATCH' },
};
const phone = {
  recordingMethod: 'PASSIVELY_MEASURED',
  device: { manufacturer: 'Google', displayName: 'Pixel 9', formFactor: 'PHONE' },
};
/** Hours the phone counts steps alongside the watch. */
const PHONE_HOURS = new Set([10, 11, 12, 13]);

/** The local wall time of an instant, `YYYY-MM-DDTHH:mm:ss` (what civil filters compare). */
export const civilTextOf = (ms: number, user: GoogleHealthUser) =>
  new Date(ms + user.offsetMinutes * 60_000).toISOString().slice(0, 19);

const SPORTS = ['RUNNING', 'BIKING', 'SWIMMING', 'STRENGTH_TRAINING', 'WALKING'];

/** The exercise of a day (every other day), with its interval. */
function exerciseOf(
  user: GoogleHealthUser,
  day: number,
): { startMs: number; endMs: number; json: Json } | null {
  if (day % 2 !== 0) return null;
  const r = seeded(`${user.seed}|exercise|${day}`);
  const startMs = midnight(day, user) + 7 * 3_600_000 + r.int(0, 50) * 60_000;
  const endMs = startMs + r.int(25, 60) * 60_000;
  const sport = r.pick(SPORTS);
  const distanceM = sport === 'STRENGTH_TRAINING' ? 0 : r.int(3000, 15000);
  return {
    startMs,
    endMs,
    json: {
      interval: interval(startMs, endMs, user),
      exerciseType: sport,
      displayName: `${sport.toLowerCase().replace('_', ' ')}`,
      activeDuration: `${Math.round((endMs - startMs) / 1000) - 60}s`,
      metricsSummary: {
        caloriesKcal: r.int(150, 600),
        ...(distanceM > 0
          ? {
              distanceMillimeters: distanceM * 1000,
              averageSpeedMillimetersPerSecond: Math.round((distanceM * 1_000_000) / (endMs - startMs)),
              elevationGainMillimeters: r.int(5, 120) * 1000,
            }
          : {}),
        steps: String(sport === 'RUNNING' || sport === 'WALKING' ? r.int(3000, 9000) : 0),
        averageHeartRateBeatsPerMinute: String(r.int(115, 155)),
        activeZoneMinutes: String(r.int(5, 40)),
      },
    },
  };
}

/**
 * Every fifth night is a CLASSIC sleep: the stages algorithm did not run on it
 * (`metadata.stagesStatus` REJECTED_SERVER, "sleep stages cannot be computed"), so it has only
 * ASLEEP / RESTLESS / AWAKE segments (v4 reference, Sleep.SleepType: "Classic sleep is a sleep
 * with 3 stages types: AWAKE, RESTLESS and ASLEEP"; SleepMetadata.stagesStatus) and its summary
 * no light, deep or REM minutes.
 */
export const isClassicNight = (day: number) => day % 5 === 3;

function classicNight(
  user: GoogleHealthUser,
  day: number,
  from: number,
  r: ReturnType<typeof seeded>,
): Point {
  const stages: Json[] = [];
  const totals: Record<string, number> = {};
  let cursor = from;
  for (const type of ['AWAKE', 'ASLEEP', 'RESTLESS', 'ASLEEP', 'AWAKE', 'ASLEEP']) {
    const minutes = type === 'ASLEEP' ? r.int(60, 150) : r.int(3, 12);
    stages.push({
      startTime: instant(cursor),
      startUtcOffset: offsetText(user),
      endTime: instant(cursor + minutes * 60_000),
      endUtcOffset: offsetText(user),
      type,
    });
    totals[type] = (totals[type] ?? 0) + minutes;
    cursor += minutes * 60_000;
  }
  return {
    atMs: from,
    date: isoDay(day),
    endMs: cursor,
    point: {
      name: name('sleep', `${day}0000`),
      dataSource: source,
      sleep: {
        interval: interval(from, cursor, user),
        type: 'CLASSIC',
        metadata: {
          nap: false,
          mainSleep: true,
          manuallyEdited: false,
          processed: true,
          stagesStatus: 'REJECTED_SERVER',
        },
        stages,
        summary: {
          minutesInSleepPeriod: String(Math.round((cursor - from) / 60_000)),
          minutesAsleep: String(totals.ASLEEP ?? 0),
          minutesAwake: String((totals.AWAKE ?? 0) + (totals.RESTLESS ?? 0)),
          stagesSummary: Object.entries(totals).map(([stage, minutes]) => ({
            type: stage,
            minutes: String(minutes),
            count: '2',
          })),
        },
      },
    },
  };
}

/**
 * The day's total calories: `total-calories` is served by rollups only (it is no member of the
 * DataPoint union), as basal burn plus the day's active energy.
 */
export function totalCaloriesOf(user: GoogleHealthUser, day: number): number {
  const active = pointsOf('active-energy-burned', user, day).reduce(
    (sum, entry) => sum + ((entry.point.activeEnergyBurned as { kcal: number }).kcal ?? 0),
    0,
  );
  return Number((1_580 + active).toFixed(1));
}

/** Every data point of `type` on local day `day`. */
export function pointsOf(type: string, user: GoogleHealthUser, day: number): Point[] {
  const date = isoDay(day);
  const start = midnight(day, user);
  const r = seeded(`${user.seed}|${type}|${day}`);
  const at = (atMs: number, point: Json): Point => ({ atMs, date, point });
  const id = (index: number) => `${day}${String(index).padStart(4, '0')}`;
  switch (type) {
    case 'exercise': {
      const found = exerciseOf(user, day);
      return found
        ? [
            at(found.startMs, {
              name: name(type, id(0)),
              dataSource: { ...source, recordingMethod: 'ACTIVELY_MEASURED' },
              exercise: found.json,
            }),
          ]
        : [];
    }
    case 'heart-rate': {
      const exercise = exerciseOf(user, day);
      const out: Point[] = [];
      for (let minute = 0; minute < 1440; minute += 5) {
        const ms = start + minute * 60_000;
        const active = exercise && ms >= exercise.startMs && ms <= exercise.endMs;
        const bpm = minute === 5 ? 0 : active ? r.int(120, 172) : r.int(52, 95);
        out.push(
          at(ms, {
            name: name(type, id(minute)),
            dataSource: source,
            heartRate: { sampleTime: sampleTime(ms, user), beatsPerMinute: String(bpm) },
          }),
        );
      }
      // Workouts are sampled every minute.
      if (exercise)
        for (let ms = exercise.startMs + 60_000; ms < exercise.endMs; ms += 60_000)
          if ((ms - start) % 300_000 !== 0)
            out.push(
              at(ms, {
                name: name(type, `${id(9000)}${ms}`),
                dataSource: source,
                heartRate: { sampleTime: sampleTime(ms, user), beatsPerMinute: String(r.int(120, 175)) },
              }),
            );
      return out.sort((a, b) => a.atMs - b.atMs);
    }
    case 'steps':
    case 'distance':
    case 'floors':
    case 'active-energy-burned': {
      const out: Point[] = [];
      for (let hour = 7; hour < 22; hour++) {
        const from = start + hour * 3_600_000;
        const span = interval(from, from + 3_600_000, user);
        const steps = r.int(100, 1500);
        // Int64 fields are JSON strings (v4 discovery document: Steps.count, Distance.millimeters).
        const body =
          type === 'steps'
            ? { steps: { interval: span, count: String(steps) } }
            : type === 'distance'
              ? { distance: { interval: span, millimeters: String(steps * 780) } }
              : type === 'floors'
                ? { floors: { interval: span, count: String(r.int(0, 3)) } }
                : { activeEnergyBurned: { interval: span, kcal: Number(r.between(5, 80).toFixed(1)) } };
        out.push(at(from, { name: name(type, id(hour)), dataSource: source, ...body }));
        if (type === 'steps' && PHONE_HOURS.has(hour))
          out.push({
            ...at(from, {
              name: name(type, id(100 + hour)),
              dataSource: phone,
              steps: { interval: span, count: String(Math.round(steps * 0.3)) },
            }),
            source: 'phone',
          });
      }
      return out.map((entry) => ({ ...entry, endMs: entry.atMs + 3_600_000 }));
    }
    case 'daily-resting-heart-rate':
      return [
        at(start, {
          name: name(type, id(0)),
          dailyRestingHeartRate: { date: civilDate(day), beatsPerMinute: String(r.int(50, 62)) },
        }),
      ];
    case 'daily-heart-rate-variability':
      return [
        at(start, {
          name: name(type, id(0)),
          dailyHeartRateVariability: {
            date: civilDate(day),
            averageHeartRateVariabilityMilliseconds: Number(r.between(25, 70).toFixed(1)),
          },
        }),
      ];
    case 'daily-respiratory-rate':
      return [
        at(start, {
          name: name(type, id(0)),
          dailyRespiratoryRate: {
            date: civilDate(day),
            breathsPerMinute: Number(r.between(12, 17).toFixed(1)),
          },
        }),
      ];
    case 'daily-oxygen-saturation':
      return [
        at(start, {
          name: name(type, id(0)),
          dailyOxygenSaturation: {
            date: civilDate(day),
            averagePercentage: Number(r.between(94, 98).toFixed(1)),
            lowerBoundPercentage: 91,
            upperBoundPercentage: 99,
          },
        }),
      ];
    case 'daily-sleep-temperature-derivations':
      return [
        at(start, {
          name: name(type, id(0)),
          dailySleepTemperatureDerivations: {
            date: civilDate(day),
            nightlyTemperatureCelsius: Number(r.between(33.5, 35).toFixed(2)),
            baselineTemperatureCelsius: 34.2,
          },
        }),
      ];
    case 'daily-vo2-max':
      return day % 7 === 0
        ? [
            at(start, {
              name: name(type, id(0)),
              dailyVo2Max: { date: civilDate(day), vo2Max: Number(r.between(42, 50).toFixed(1)) },
            }),
          ]
        : [];
    case 'weight':
    case 'body-fat': {
      if (day % 3 !== 0) return [];
      const ms = start + 7 * 3_600_000;
      const body =
        type === 'weight'
          ? { weight: { sampleTime: sampleTime(ms, user), weightGrams: r.int(68_000, 76_000) } }
          : {
              bodyFat: { sampleTime: sampleTime(ms, user), percentage: Number(r.between(16, 24).toFixed(1)) },
            };
      return [at(ms, { name: name(type, id(0)), dataSource: { recordingMethod: 'MANUAL' }, ...body })];
    }
    case 'sleep': {
      // The night that ends on the morning of `day`.
      const from = start - r.int(30, 90) * 60_000;
      if (isClassicNight(day)) return [classicNight(user, day, from, r)];
      const stages: Json[] = [];
      let cursor = from;
      const totals: Record<string, number> = {};
      for (const type of [
        'AWAKE',
        'LIGHT',
        'DEEP',
        'LIGHT',
        'REM',
        'AWAKE',
        'LIGHT',
        'DEEP',
        'REM',
        'LIGHT',
      ]) {
        const minutes = type === 'AWAKE' ? r.int(2, 8) : r.int(30, 70);
        stages.push({
          startTime: instant(cursor),
          startUtcOffset: offsetText(user),
          endTime: instant(cursor + minutes * 60_000),
          endUtcOffset: offsetText(user),
          type,
        });
        totals[type] = (totals[type] ?? 0) + minutes;
        cursor += minutes * 60_000;
      }
      const asleep = (totals.LIGHT ?? 0) + (totals.DEEP ?? 0) + (totals.REM ?? 0);
      return [
        {
          ...at(from, {
            name: name(type, id(0)),
            dataSource: source,
            sleep: {
              interval: interval(from, cursor, user),
              type: 'STAGES',
              metadata: {
                nap: false,
                mainSleep: true,
                manuallyEdited: false,
                processed: true,
                stagesStatus: 'SUCCEEDED',
              },
              stages,
              summary: {
                minutesInSleepPeriod: String(Math.round((cursor - from) / 60_000)),
                minutesAsleep: String(asleep),
                minutesAwake: String(totals.AWAKE ?? 0),
                minutesToFallAsleep: '3',
                minutesAfterWakeUp: '0',
                stagesSummary: Object.entries(totals).map(([stage, minutes]) => ({
                  type: stage,
                  minutes: String(minutes),
                  count: '2',
                })),
              },
            },
          }),
          endMs: cursor,
        },
      ];
    }
    case 'nutrition-log': {
      const out: Point[] = [];
      for (const [index, [meal, hour]] of (
        [
          ['BREAKFAST', 8],
          ['LUNCH', 13],
          ['DINNER', 19],
        ] as const
      ).entries()) {
        const ms = start + hour * 3_600_000;
        out.push(
          at(ms, {
            name: name(type, id(index)),
            dataSource: { recordingMethod: 'MANUAL' },
            // v4 NutritionLog: a session type; protein and the rest are `nutrients[]` in grams.
            nutritionLog: {
              interval: interval(ms, ms + 1_800_000, user),
              mealType: meal,
              foodDisplayName: `${meal.toLowerCase()} bowl`,
              food: `foods/${day}${index}`,
              energy: { kcal: r.int(300, 800) },
              totalCarbohydrate: { grams: r.int(20, 90) },
              totalFat: { grams: r.int(5, 35) },
              nutrients: [
                { nutrient: 'PROTEIN', quantity: { grams: r.int(10, 45) } },
                { nutrient: 'SODIUM', quantity: { grams: r.int(200, 900) / 1000 } },
                { nutrient: 'DIETARY_FIBER', quantity: { grams: r.int(2, 12) } },
                { nutrient: 'POTASSIUM', quantity: { grams: r.int(100, 700) / 1000 } },
              ],
              serving: { amount: 1, unit: 'GRAM' },
            },
          }),
        );
      }
      return out.map((entry) => ({ ...entry, endMs: entry.atMs + 1_800_000 }));
    }
    case 'hydration-log': {
      const out: Point[] = [];
      for (const hour of [9, 12, 15, 18]) {
        const ms = start + hour * 3_600_000;
        out.push(
          at(ms, {
            name: name(type, id(hour)),
            dataSource: { recordingMethod: 'MANUAL' },
            hydrationLog: {
              interval: interval(ms, ms + 60_000, user),
              amountConsumed: { milliliters: r.int(150, 500), userProvidedUnit: 'MILLILITER' },
            },
          }),
        );
      }
      return out.map((entry) => ({ ...entry, endMs: entry.atMs + 60_000 }));
    }
    default:
      return [];
  }
}

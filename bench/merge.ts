/**
 * Merge cost of one person's year (issue 29): three sources, 365 days of stored records built in
 * memory in the model's shape, merged by the merge engine's `mergeRecords` for daily, sleep and
 * activity, as one `/v3/people` read of the year merges them:
 * - a watch (GARMIN): a day record with a step sample a minute while worn and a heart-rate sample
 *   a minute, off the wrist 18:00–19:30 to charge; a morning run with 5-second heart rate and
 *   positions; its own night of sleep with a minute hypnogram;
 * - a ring (OURA): the night's sleep with a 5-minute hypnogram and heart rate, and a day record
 *   with day totals only (steps, distance, energy; no samples);
 * - a phone (APPLE): a day record with a step sample every 5 minutes, 07:02–22:02, overlapping the
 *   watch off its minute marks (so the charging gap is filled with prorated pieces), and every
 *   third day the same run as a workout of its own.
 * The developer's order for cumulative metrics is watch, phone, ring: by the default order the
 * ring's day totals (one slice covering the day) would win and the watch's minutes would not count.
 *
 * Prints records in and merged out, the CPU time of the merge (process.cpuUsage: the merge only,
 * not building the input) for the year and per day, the heap after each type and the peak RSS;
 * then the year again in four-week parts as a read merges it, each part's records built, merged and
 * dropped, with the heap held while merging each part and after it (after a full collection), to show that
 * memory stays flat over the range when the range is merged in parts (merging the whole year in
 * one call holds the whole year's records and results, as the first part shows). Goal: a year merges in under 1 s of CPU on this machine, memory flat.
 *
 *   node_modules/.bin/node bench/merge.ts [days=365]
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type MergedType, mergeRecords } from '../src/features/merge/engine/merge-records.ts';
import type { SourcedRecord } from '../src/features/merge/engine/provenance.ts';
import type { Priorities, Source } from '../src/features/merge/engine/sources.ts';
import { ActivityType } from '../src/model/activity-type.ts';
import { SleepLevel } from '../src/model/enums.ts';
import { formatDateTime } from '../src/model/time.ts';
import { reportFigures } from './figures.ts';

const days = Number(process.argv[2] ?? 365);
const FIRST_DAY_MS = Date.parse('2025-01-01T00:00:00Z');
const OFFSET = 60; // the person lives at UTC+01:00
const MINUTE = 60_000;
const DAY_MS = 1440 * MINUTE;
const TYPES: readonly MergedType[] = ['daily', 'sleep', 'activity'];

const WATCH: Source = { connectionId: 'c-watch', provider: 'GARMIN', deviceKind: 'watch' };
const RING: Source = { connectionId: 'c-ring', provider: 'OURA', deviceKind: 'ring' };
const PHONE: Source = { connectionId: 'c-phone', provider: 'APPLE', deviceKind: 'phone' };
const PRIORITIES: Priorities = { cumulative: ['watch', 'phone', 'ring'] };

// A full collection between phases, so the heap figures are what is still held, not garbage.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** A small deterministic generator (mulberry32), so every run merges the same year. */
function randomOf(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const at = (ms: number) => formatDateTime(ms, OFFSET);
/** UTC instant of a local minute of day `day`. */
const localMs = (day: number, minute: number) => FIRST_DAY_MS + day * DAY_MS + (minute - OFFSET) * MINUTE;
const dayBounds = (day: number) => ({
  start_time: at(localMs(day, 0)),
  end_time: at(localMs(day + 1, 0)),
  upload_type: 1,
  timestamp_localization: 0,
});
const sourced = (source: Source, key: string, record: Record<string, unknown>): SourcedRecord => ({
  source,
  key,
  record,
});
const device = (name: string) => ({ name, manufacturer: null, hardware_version: null });

function watchDay(day: number, random: () => number): SourcedRecord {
  const steps: { timestamp: string; steps: number; timer_duration_seconds: number }[] = [];
  const heart: { timestamp: string; bpm: number }[] = [];
  for (let minute = 0; minute < 1440; minute++) {
    const charging = minute >= 18 * 60 && minute < 19 * 60 + 30;
    if (charging) continue;
    const awake = minute >= 7 * 60 && minute < 23 * 60;
    heart.push({ timestamp: at(localMs(day, minute)), bpm: Math.round((awake ? 72 : 55) + random() * 30) });
    if (awake) {
      const count = Math.floor(random() * 20);
      if (count > 0)
        steps.push({ timestamp: at(localMs(day, minute)), steps: count, timer_duration_seconds: 60 });
    }
  }
  const total = steps.reduce((sum, sample) => sum + sample.steps, 0);
  return sourced(WATCH, `daily:${day}`, {
    metadata: dayBounds(day),
    distance_data: {
      steps: total,
      distance_meters: Math.round(total * 0.78 * 100) / 100,
      floors_climbed: Math.floor(random() * 20),
      detailed: { step_samples: steps, distance_samples: [] },
    },
    calories_data: { net_activity_calories: Math.round(total * 0.04), BMR_calories: 1650 },
    heart_rate_data: {
      summary: { avg_hr_bpm: 68, min_hr_bpm: 50, max_hr_bpm: 160, resting_hr_bpm: 54 },
      detailed: { hr_samples: heart },
    },
    device_data: device('Forerunner 965'),
  });
}

function phoneDay(day: number, random: () => number): SourcedRecord {
  const steps: { timestamp: string; steps: number; timer_duration_seconds: number }[] = [];
  for (let minute = 7 * 60 + 2; minute < 22 * 60 + 2; minute += 5) {
    const count = Math.floor(random() * 100);
    if (count > 0)
      steps.push({ timestamp: at(localMs(day, minute)), steps: count, timer_duration_seconds: 300 });
  }
  const total = steps.reduce((sum, sample) => sum + sample.steps, 0);
  return sourced(PHONE, `daily:${day}`, {
    metadata: dayBounds(day),
    distance_data: {
      steps: total,
      distance_meters: null,
      floors_climbed: null,
      detailed: { step_samples: steps, distance_samples: [] },
    },
    calories_data: { net_activity_calories: Math.round(total * 0.035), BMR_calories: null },
    device_data: device('iPhone'),
  });
}

function ringDay(day: number, random: () => number): SourcedRecord {
  const steps = 6000 + Math.floor(random() * 6000);
  return sourced(RING, `daily:${day}`, {
    metadata: dayBounds(day),
    distance_data: { steps, distance_meters: Math.round(steps * 0.75), floors_climbed: null, detailed: null },
    calories_data: { net_activity_calories: Math.round(steps * 0.045), BMR_calories: 1600 },
    heart_rate_data: { summary: { resting_hr_bpm: 52, avg_hrv_rmssd: 48 }, detailed: null },
    device_data: device('Oura Ring 4'),
  });
}

const LEVELS = [SleepLevel.LIGHT, SleepLevel.DEEP, SleepLevel.LIGHT, SleepLevel.REM, SleepLevel.AWAKE];

/** A night ending on the morning of `day`: from `fromMinute` of the evening before, `minutes` long. */
function night(
  source: Source,
  day: number,
  fromMinute: number,
  minutes: number,
  everyMinutes: number,
  random: () => number,
  name: string,
): SourcedRecord {
  const start = localMs(day - 1, fromMinute);
  const hypnogram: { timestamp: string; level: number }[] = [];
  const heart: { timestamp: string; bpm: number }[] = [];
  for (let minute = 0; minute < minutes; minute += everyMinutes) {
    hypnogram.push({ timestamp: at(start + minute * MINUTE), level: LEVELS[Math.floor(minute / 45) % 5]! });
    heart.push({ timestamp: at(start + minute * MINUTE), bpm: Math.round(50 + random() * 10) });
  }
  return sourced(source, `sleep:${day}`, {
    metadata: {
      start_time: at(start),
      end_time: at(start + minutes * MINUTE),
      upload_type: 1,
      is_nap: false,
      summary_id: `${source.connectionId}-night-${day}`,
      timestamp_localization: 0,
    },
    sleep_durations_data: {
      asleep: { duration_asleep_state_seconds: (minutes - 30) * 60 },
      awake: { duration_awake_state_seconds: 30 * 60 },
      other: { duration_in_bed_seconds: minutes * 60 },
      hypnogram_samples: hypnogram,
      sleep_efficiency: 93,
    },
    heart_rate_data: { summary: { avg_hr_bpm: 55 }, detailed: { hr_samples: heart } },
    device_data: device(name),
  });
}

/** A 45-minute morning run at 07:15, with a sample every 5 seconds (phone: summary and heart rate only). */
function run(source: Source, day: number, random: () => number, withRoute: boolean): SourcedRecord {
  const start = localMs(day, 7 * 60 + 15 + (source === PHONE ? 1 : 0));
  const heart: { timestamp: string; bpm: number }[] = [];
  const positions: {
    timestamp: string;
    coords_lat_lng_deg: [number, number];
    timer_duration_seconds: null;
  }[] = [];
  for (let second = 0; second < 45 * 60; second += 5) {
    heart.push({ timestamp: at(start + second * 1000), bpm: Math.round(140 + random() * 30) });
    if (withRoute)
      positions.push({
        timestamp: at(start + second * 1000),
        coords_lat_lng_deg: [51.5 + second / 1e5, -0.12 + second / 2e5],
        timer_duration_seconds: null,
      });
  }
  return sourced(source, `activity:${day}`, {
    metadata: {
      summary_id: `${source.connectionId}-run-${day}`,
      start_time: at(start),
      end_time: at(start + 45 * 60_000),
      type: ActivityType.RUNNING,
      upload_type: 1,
      name: 'Morning run',
      timestamp_localization: 0,
    },
    distance_data: { summary: { distance_meters: 7500 + Math.round(random() * 1000) } },
    heart_rate_data: { summary: { avg_hr_bpm: 152 }, detailed: { hr_samples: heart } },
    position_data: withRoute ? { position_samples: positions } : null,
    device_data: device(source === PHONE ? 'iPhone' : 'Forerunner 965'),
  });
}

type Input = Record<MergedType, SourcedRecord[]>;

/** The stored records of days [from, to), every source's, in no particular order. */
function build(from: number, to: number): Input {
  const input: Input = { activity: [], body: [], daily: [], menstruation: [], nutrition: [], sleep: [] };
  for (let day = from; day < to; day++) {
    const random = randomOf(day + 1);
    input.daily.push(watchDay(day, random), phoneDay(day, random), ringDay(day, random));
    input.sleep.push(
      night(RING, day, 23 * 60, 8 * 60, 5, random, 'Oura Ring 4'),
      night(WATCH, day, 23 * 60 + 10, 7 * 60 + 40, 1, random, 'Forerunner 965'),
    );
    input.activity.push(run(WATCH, day, random, true));
    if (day % 3 === 0) input.activity.push(run(PHONE, day, random, false));
  }
  return input;
}

const mb = (bytes: number) => bytes / 1024 / 1024;
const heapMb = () => mb(process.memoryUsage().heapUsed);
const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

/** Merges each type of `input`; CPU time counts the merge alone. */
function mergeAll(input: Input) {
  const perType = new Map<MergedType, { in: number; out: number; cpuMs: number; heapAfterMb: number }>();
  let firstDaily: Record<string, unknown> | undefined;
  for (const type of TYPES) {
    const before = process.cpuUsage();
    const merged = mergeRecords(type, input[type], PRIORITIES);
    const spent = cpuMs(process.cpuUsage(before));
    if (type === 'daily') firstDaily = merged[0];
    perType.set(type, { in: input[type].length, out: merged.length, cpuMs: spent, heapAfterMb: heapMb() });
  }
  return { perType, firstDaily };
}

// --- the year as one read merges it --------------------------------------------------------------

const year = build(0, days);
collect();
const inputHeapMb = heapMb();
const inputRssMb = mb(process.memoryUsage().rss);
const samplesIn = TYPES.reduce(
  (sum, type) =>
    sum +
    year[type].reduce(
      (count, record) => count + JSON.stringify(record.record).split('"timestamp"').length - 1,
      0,
    ),
  0,
);
const { perType, firstDaily } = mergeAll(year);
const peakRssMb = process.resourceUsage().maxRSS / 1024;

const total = [...perType.values()].reduce(
  (sum, entry) => ({ in: sum.in + entry.in, out: sum.out + entry.out, cpuMs: sum.cpuMs + entry.cpuMs }),
  { in: 0, out: 0, cpuMs: 0 },
);
console.log(
  `merge of one person's ${days} days, three sources (watch, ring, phone), developer order for cumulative: ${PRIORITIES.cumulative!.join(' > ')}`,
);
for (const [type, entry] of perType)
  console.log(
    `  ${type.padEnd(8)} ${String(entry.in).padStart(5)} records in → ${String(entry.out).padStart(4)} merged, ` +
      `${entry.cpuMs.toFixed(0).padStart(5)} ms CPU, heap after ${entry.heapAfterMb.toFixed(0)} MB`,
  );
console.log(
  `  all      ${total.in} records (${samplesIn} samples) in → ${total.out} merged, ${total.cpuMs.toFixed(0)} ms CPU ` +
    `for ${days} days, ${(total.cpuMs / days).toFixed(2)} ms a day (goal: a year under 1,000 ms)`,
);
console.log(
  `  memory: heap ${inputHeapMb.toFixed(0)} MB and RSS ${inputRssMb.toFixed(0)} MB with the year's records built; ` +
    `peak RSS ${peakRssMb.toFixed(0)} MB by the end of the merge`,
);
const steps = (firstDaily?.['distance_data'] as { steps?: unknown } | undefined)?.steps;
const firstIn = year.daily
  .slice(0, 3)
  .map((entry) => (entry.record['distance_data'] as { steps: number }).steps);
console.log(
  `  check, first day's steps: watch ${firstIn[0]}, phone ${firstIn[1]}, ring ${firstIn[2]} → merged ${String(steps)}`,
);

// --- the same year in four-week parts, as a read merges it: memory flat over the range -----------

year.daily.length = 0;
year.sleep.length = 0;
year.activity.length = 0;
collect();
/** As src/features/merge/service.ts merges a long window (PART_DAYS). */
const PART_DAYS = 28;
const partHeld: number[] = [];
const partHeap: number[] = [];
let partCpu = 0;
for (let from = 0; from < days; from += PART_DAYS) {
  const { perType: partTypes } = mergeAll(build(from, Math.min(days, from + PART_DAYS)));
  // While merging: the part's records and what is merged so far; after: what outlives it.
  partHeld.push(Math.max(...[...partTypes.values()].map((entry) => entry.heapAfterMb)));
  collect();
  partHeap.push(heapMb());
  partCpu += [...partTypes.values()].reduce((sum, entry) => sum + entry.cpuMs, 0);
}
console.log(
  `  in ${partHeld.length} parts of ${PART_DAYS} days: heap while merging a part ${Math.min(...partHeld).toFixed(0)}–${Math.max(...partHeld).toFixed(0)} MB ` +
    `(first ${partHeld[0]!.toFixed(0)} MB, last ${partHeld.at(-1)!.toFixed(0)} MB); after each part ${Math.min(...partHeap).toFixed(1)}–${Math.max(...partHeap).toFixed(1)} MB; ` +
    `CPU ${partCpu.toFixed(0)} ms for the year`,
);

reportFigures({
  mergeRecordsIn: total.in,
  mergeRecordsOut: total.out,
  mergeSamplesIn: samplesIn,
  mergeYearCpuMs: total.cpuMs,
  mergeDayMeanCpuMs: total.cpuMs / days,
  mergeInputHeapMb: inputHeapMb,
  mergePeakRssMb: peakRssMb,
  mergePartHeldFirstMb: partHeld[0]!,
  mergePartHeldLastMb: partHeld.at(-1)!,
  mergePartHeldMaxMb: Math.max(...partHeld),
  mergePartsCpuMs: partCpu,
});

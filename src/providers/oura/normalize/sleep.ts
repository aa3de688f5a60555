// Oura sleep periods (+ daily_sleep, daily_readiness, daily_spo2 of the same day) -> Sleep.
//
// Cannot map: `movement_30_sec`, `restless_periods`, `low_battery_alert`, `period`, `ring_id`
// (encrypted, not a serial number), `sleep_score_delta`, `readiness_score_delta`,
// `sleep_algorithm_version`, readiness `temperature_trend_deviation` and daily_spo2
// `breathing_disturbance_index` — the model has no slot for them. `recovery_level` is not
// derived from the readiness score (Oura publishes no such banding). Periods of type `deleted`
// (removed by the user) and `rest` (rejected by the user as not sleep) produce no record.
// Day-level documents (daily_sleep score/contributors, daily_spo2, daily_readiness when the
// period carries none) belong to the day's main period: the longest `long_sleep`, else the
// longest period of that day.
import { heartRate, maxOf, minOf } from '../../../provider-kit/normalize/measures.ts';
import { type CodeOf, SleepLevel, SleepUploadType } from '../../../model/enums.ts';
import type { Sleep } from '../../../model/sleep.ts';
import { formatDateTime } from '../../../model/time.ts';
import {
  contributorMap,
  instantOf,
  type NormalizeContext,
  offsetFor,
} from '../../../provider-kit/normalize/normalize.ts';
import { expandClassification, expandSeries } from './series.ts';
import type {
  OuraContributors,
  OuraDailyReadiness,
  OuraDailySleep,
  OuraDailySpo2,
  OuraSleepPeriod,
} from './types.ts';

type SleepLevelCode = CodeOf<typeof SleepLevel>;

export type OuraSleepPayload = {
  sleep: readonly OuraSleepPeriod[];
  daily_sleep?: readonly OuraDailySleep[];
  daily_readiness?: readonly OuraDailyReadiness[];
  daily_spo2?: readonly OuraDailySpo2[];
};

/** `sleep_phase_*`: '1' deep, '2' light, '3' REM, '4' awake. */
function sleepLevelOf(character: string): SleepLevelCode | null {
  switch (character) {
    case '1':
      return SleepLevel.DEEP;
    case '2':
      return SleepLevel.LIGHT;
    case '3':
      return SleepLevel.REM;
    case '4':
      return SleepLevel.AWAKE;
    default:
      return null;
  }
}

function byDay<T extends { day: string }>(documents: readonly T[] | undefined): Map<string, T> {
  const map = new Map<string, T>();
  for (const document of documents ?? []) map.set(document.day, document);
  return map;
}

/** The period each day's day-level documents describe. */
function mainPeriodIds(periods: readonly OuraSleepPeriod[]): Set<string> {
  const best = new Map<string, OuraSleepPeriod>();
  const rank = (period: OuraSleepPeriod) => (period.type === 'long_sleep' ? 1 : 0);
  for (const period of periods) {
    const current = best.get(period.day);
    if (
      !current ||
      rank(period) > rank(current) ||
      (rank(period) === rank(current) && period.time_in_bed > current.time_in_bed)
    ) {
      best.set(period.day, period);
    }
  }
  return new Set([...best.values()].map((period) => period.id));
}

type DayDocuments = {
  dailySleep: OuraDailySleep | undefined;
  readiness: OuraDailyReadiness | undefined;
  spo2: OuraDailySpo2 | undefined;
};

export function normalizeSleepPeriod(
  period: OuraSleepPeriod,
  day: DayDocuments,
  context: NormalizeContext,
): Sleep {
  const offset = offsetFor(period.bedtime_start, context);
  const startMs = instantOf(period.bedtime_start, offset);
  const endMs = instantOf(period.bedtime_end, offsetFor(period.bedtime_end, context));
  const fine = period.sleep_phase_30_sec;
  const hypnogram = fine
    ? expandClassification(fine, startMs, 30, offset, sleepLevelOf, makeHypnogramSample, true)
    : expandClassification(
        period.sleep_phase_5_min,
        startMs,
        300,
        offset,
        sleepLevelOf,
        makeHypnogramSample,
        true,
      );
  const readiness = period.readiness ?? null;
  const readinessScore = readiness?.score ?? day.readiness?.score ?? null;
  const readinessContributors: OuraContributors | undefined =
    readiness?.contributors ?? day.readiness?.contributors;
  const temperatureDelta = readiness?.temperature_deviation ?? day.readiness?.temperature_deviation ?? null;
  const sleepScore = day.dailySleep?.score ?? null;
  const spo2 = day.spo2?.spo2_percentage?.average ?? null;
  const start_time = formatDateTime(startMs, offset);
  const end_time = formatDateTime(endMs, offset);
  // Naps without a heart-rate series report 0 (or 255) bpm: those are no readings.
  const hrSamples = expandSeries(period.heart_rate, offset, (timestamp, bpm) => ({ timestamp, bpm })).filter(
    (sample) => heartRate(sample.bpm) !== null,
  );
  const lowest = heartRate(period.lowest_heart_rate);
  // Time in bed is the period's span when Oura leaves it out.
  const inBed =
    typeof period.time_in_bed === 'number'
      ? period.time_in_bed
      : endMs > startMs
        ? (endMs - startMs) / 1000
        : null;
  return {
    metadata: {
      start_time,
      end_time,
      upload_type: SleepUploadType.AUTOMATIC,
      // 'sleep' (confirmed, 15 min to 3 h) and 'late_nap' are naps; 'long_sleep' (> 3 h) is not.
      is_nap: period.type ? period.type !== 'long_sleep' : null,
      summary_id: period.id,
      timestamp_localization: offset === 0 ? 0 : 1,
    },
    sleep_durations_data: {
      asleep: {
        duration_asleep_state_seconds: period.total_sleep_duration ?? null,
        duration_deep_sleep_state_seconds: period.deep_sleep_duration ?? null,
        duration_light_sleep_state_seconds: period.light_sleep_duration ?? null,
        duration_REM_sleep_state_seconds: period.rem_sleep_duration ?? null,
      },
      awake: {
        duration_awake_state_seconds: period.awake_time ?? null,
        sleep_latency_seconds: period.latency ?? null,
      },
      other: { duration_in_bed_seconds: inBed },
      hypnogram_samples: hypnogram,
      sleep_efficiency: period.efficiency ?? null,
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: heartRate(period.average_heart_rate),
        min_hr_bpm: lowest ?? minOf(hrSamples, 'bpm'),
        // The summary has no maximum: it comes from the series.
        max_hr_bpm: maxOf(hrSamples, 'bpm'),
        // Oura's lowest sleeping heart rate is what its app reports as resting heart rate.
        resting_hr_bpm: lowest,
        avg_hrv_rmssd: period.average_hrv ?? null,
      },
      detailed: {
        hr_samples: hrSamples,
        hrv_samples_rmssd: expandSeries(period.hrv, offset, (timestamp, hrv_rmssd) => ({
          timestamp,
          hrv_rmssd,
        })),
      },
    },
    respiration_data: {
      breaths_data: { avg_breaths_per_min: period.average_breath ?? null, start_time, end_time },
      oxygen_saturation_data:
        spo2 === null ? null : { avg_saturation_percentage: spo2, start_time, end_time },
    },
    readiness_data: { readiness: readinessScore },
    temperature_data: { delta: temperatureDelta },
    scores: { sleep: sleepScore, sleep_score: sleepScore },
    data_enrichment: {
      sleep_score: sleepScore,
      sleep_contributors: contributorMap(day.dailySleep?.contributors),
      readiness_score: readinessScore,
      readiness_contributors: contributorMap(readinessContributors),
    },
  };
}

function makeHypnogramSample(timestamp: string, level: SleepLevelCode) {
  return { timestamp, level };
}

export function normalizeSleep(payload: OuraSleepPayload, context: NormalizeContext): Sleep[] {
  const periods = payload.sleep.filter((period) => period.type !== 'deleted' && period.type !== 'rest');
  const main = mainPeriodIds(periods);
  const dailySleep = byDay(payload.daily_sleep);
  const readiness = byDay(payload.daily_readiness);
  const spo2 = byDay(payload.daily_spo2);
  const none: DayDocuments = { dailySleep: undefined, readiness: undefined, spo2: undefined };
  return periods.map((period) =>
    normalizeSleepPeriod(
      period,
      main.has(period.id)
        ? {
            dailySleep: dailySleep.get(period.day),
            readiness: readiness.get(period.day),
            spo2: spo2.get(period.day),
          }
        : none,
      context,
    ),
  );
}

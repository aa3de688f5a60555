// Withings sleep getsummary (+ sleep get state segments of the same nights) -> Sleep, one per
// summary, summary_id = the summary `id`.
//
// Cannot map: `waso`, `apnea_hypopnea_index`, `breathing_disturbances_intensity`,
// `withings_index`, `night_events`, movement scores, chest-movement rates, core body temperature
// (Sleep's temperature_data is a deviation from baseline, not a reading), `hrv_quality` and
// `mvt_score` series, `durationtosleep`/`durationtowakeup` (deprecated). `sleep_efficiency` is
// a ratio and becomes a percentage. The night's HRV average is the mean of
// `rmssd_start_avg` and `rmssd_end_avg` (both RMSSD, ms). Segment states 0 awake / 1 light /
// 2 deep / 3 REM / 4 manual / 5 unspecified / 15 out of bed -> SleepLevel AWAKE / LIGHT / DEEP /
// REM / SLEEPING / SLEEPING / OUT_OF_BED. An incomplete night (`completed: false`) is
// tentative. Segments and their hr/rr/snoring/rmssd/sdnn_1 series belong to the summary whose
// span contains their start.
import { heartRate, maxOf, minOf } from '../../../provider-kit/normalize/measures.ts';
import { type CodeOf, HeartRateContext, SleepLevel, SleepUploadType } from '../../../model/enums.ts';
import type { Sleep } from '../../../model/sleep.ts';
import { formatDateTime } from '../../../model/time.ts';
import type { NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import { sumOrNull } from '../../../provider-kit/normalize/units.ts';
import { offsetIn } from './timezone.ts';
import {
  type Pages,
  pagesOf,
  type WithingsSleepBody,
  type WithingsSleepSegment,
  type WithingsSleepSummary,
  type WithingsSleepSummaryBody,
  type WithingsTimedValues,
} from './types.ts';

export type WithingsSleepPayload = {
  sleep_summary: Pages<WithingsSleepSummaryBody>;
  sleep?: Pages<WithingsSleepBody>;
};

type Level = CodeOf<typeof SleepLevel>;
function sleepLevel(state: number): Level {
  switch (state) {
    case 0:
      return SleepLevel.AWAKE;
    case 1:
      return SleepLevel.LIGHT;
    case 2:
      return SleepLevel.DEEP;
    case 3:
      return SleepLevel.REM;
    case 4:
    case 5:
      return SleepLevel.SLEEPING;
    case 15:
      return SleepLevel.OUT_OF_BED;
    default:
      return SleepLevel.UNKNOWN;
  }
}

const deviceNames: Readonly<Record<number, string>> = {
  16: 'Withings tracker',
  32: 'Withings sleep monitor',
};

function series<T>(
  values: WithingsTimedValues | undefined,
  offset: number,
  make: (timestamp: string, value: number) => T,
  out: [number, T][],
  measured: (value: number) => boolean = Number.isFinite,
): void {
  if (!values) return;
  for (const key in values) {
    const value = values[key];
    if (typeof value !== 'number' || !measured(value) || !Number.isFinite(Number(key))) continue;
    const atMs = Number(key) * 1000;
    out.push([atMs, make(formatDateTime(atMs, offset), value)]);
  }
}

const sorted = <T>(items: [number, T][]): T[] =>
  items.sort((left, right) => left[0] - right[0]).map(([, item]) => item);

function toSleep(
  summary: WithingsSleepSummary,
  segments: readonly WithingsSleepSegment[],
  fallback: number,
): Sleep {
  const startMs = summary.startdate * 1000;
  const endMs = summary.enddate * 1000;
  const offset = offsetIn(summary.timezone, startMs, fallback);
  const data = summary.data ?? {};
  const hypnogram: { timestamp: string; level: Level }[] = [];
  const hr: [number, { timestamp: string; bpm: number; context: 2 }][] = [];
  const breaths: [number, { timestamp: string; breaths_per_min: number }][] = [];
  const snoring: [number, { timestamp: string; duration_seconds: number }][] = [];
  const rmssd: [number, { timestamp: string; hrv_rmssd: number }][] = [];
  const sdnn: [number, { timestamp: string; hrv_sdnn: number }][] = [];
  let previous: Level | null = null;
  for (const segment of [...segments].sort((left, right) => left.startdate - right.startdate)) {
    const level = sleepLevel(segment.state);
    if (level !== previous)
      hypnogram.push({ timestamp: formatDateTime(segment.startdate * 1000, offset), level });
    previous = level;
    series(
      segment.hr,
      offset,
      (timestamp, bpm) => ({ timestamp, bpm, context: HeartRateContext.NOT_ACTIVE }),
      hr,
      (bpm) => heartRate(bpm) !== null,
    );
    series(segment.rr, offset, (timestamp, breaths_per_min) => ({ timestamp, breaths_per_min }), breaths);
    series(
      segment.snoring,
      offset,
      (timestamp, duration_seconds) => ({ timestamp, duration_seconds }),
      snoring,
    );
    series(segment.rmssd, offset, (timestamp, hrv_rmssd) => ({ timestamp, hrv_rmssd }), rmssd);
    series(segment.sdnn_1, offset, (timestamp, hrv_sdnn) => ({ timestamp, hrv_sdnn }), sdnn);
  }
  const rmssdAverage =
    typeof data.rmssd_start_avg === 'number' && typeof data.rmssd_end_avg === 'number'
      ? (data.rmssd_start_avg + data.rmssd_end_avg) / 2
      : (data.rmssd_start_avg ?? data.rmssd_end_avg ?? null);
  // A ratio per the spec; a value above 1 can only already be a percentage.
  const efficiency =
    typeof data.sleep_efficiency === 'number'
      ? data.sleep_efficiency <= 1
        ? data.sleep_efficiency * 100
        : data.sleep_efficiency
      : null;
  const score = data.sleep_score ?? null;
  const snoringSamples = sorted(snoring);
  const hrSamples = sorted(hr);
  const breathSamples = sorted(breaths);
  return {
    metadata: {
      summary_id: String(summary.id),
      start_time: formatDateTime(startMs, offset),
      end_time: formatDateTime(endMs, offset),
      upload_type: summary.completed === false ? SleepUploadType.TENTATIVE : SleepUploadType.AUTOMATIC,
      timestamp_localization: offset === 0 ? 0 : 1,
    },
    sleep_durations_data: {
      asleep: {
        duration_asleep_state_seconds:
          data.total_sleep_time ??
          data.asleepduration ??
          sumOrNull(data.lightsleepduration, data.deepsleepduration, data.remsleepduration),
        duration_light_sleep_state_seconds: data.lightsleepduration ?? null,
        duration_deep_sleep_state_seconds: data.deepsleepduration ?? null,
        duration_REM_sleep_state_seconds: data.remsleepduration ?? null,
        num_REM_events: data.nb_rem_episodes ?? null,
      },
      awake: {
        duration_awake_state_seconds: data.wakeupduration ?? null,
        num_wakeup_events: data.wakeupcount ?? null,
        num_out_of_bed_events: data.out_of_bed_count ?? null,
        sleep_latency_seconds: data.sleep_latency ?? null,
        wake_up_latency_seconds: data.wakeup_latency ?? null,
      },
      // Time in bed is the night's span when the summary leaves it out.
      other: {
        duration_in_bed_seconds: data.total_timeinbed ?? (endMs > startMs ? (endMs - startMs) / 1000 : null),
      },
      hypnogram_samples: hypnogram,
      sleep_efficiency: efficiency,
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: heartRate(data.hr_average),
        min_hr_bpm: heartRate(data.hr_min) ?? minOf(hrSamples, 'bpm'),
        max_hr_bpm: heartRate(data.hr_max) ?? maxOf(hrSamples, 'bpm'),
        avg_hrv_rmssd: rmssdAverage,
      },
      detailed: { hr_samples: hrSamples, hrv_samples_rmssd: sorted(rmssd), hrv_samples_sdnn: sorted(sdnn) },
    },
    respiration_data: {
      breaths_data: {
        avg_breaths_per_min: data.rr_average ?? null,
        min_breaths_per_min: data.rr_min ?? null,
        max_breaths_per_min: data.rr_max ?? null,
        samples: breathSamples,
        start_time: breathSamples[0]?.timestamp ?? null,
        end_time: breathSamples[breathSamples.length - 1]?.timestamp ?? null,
      },
      snoring_data: {
        total_snoring_duration_seconds: data.snoring ?? null,
        num_snoring_events: data.snoringepisodecount ?? null,
        samples: snoringSamples,
        start_time: snoringSamples[0]?.timestamp ?? null,
        end_time: snoringSamples[snoringSamples.length - 1]?.timestamp ?? null,
      },
    },
    scores: { sleep: score, sleep_score: score },
    data_enrichment: { sleep_score: score },
    device_data:
      typeof summary.model === 'number'
        ? { name: deviceNames[summary.model] ?? null, manufacturer: 'Withings' }
        : null,
  };
}

export function normalizeSleep(payload: WithingsSleepPayload, context: NormalizeContext): Sleep[] {
  const fallback = context.userOffsetMinutes ?? 0;
  const summaries: WithingsSleepSummary[] = [];
  for (const body of pagesOf(payload.sleep_summary)) summaries.push(...body.series);
  const segments: WithingsSleepSegment[] = [];
  for (const body of pagesOf(payload.sleep)) {
    if (Array.isArray(body.series)) segments.push(...(body.series as readonly WithingsSleepSegment[]));
    else segments.push(body.series as WithingsSleepSegment);
  }
  return summaries
    .sort((left, right) => left.startdate - right.startdate)
    .map((summary) =>
      toSleep(
        summary,
        segments.filter(
          (segment) => segment.startdate >= summary.startdate && segment.startdate < summary.enddate,
        ),
        fallback,
      ),
    );
}

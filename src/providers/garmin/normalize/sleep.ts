// Garmin sleeps (+ the night's HRV summary and all-day respiration) -> Sleep, one per summary,
// summary_id = Garmin's `summaryId`.
//
// Times: the night starts at `startTimeInSeconds` and ends where its last `sleepLevelsMap` span
// ends; without spans, after the stage durations plus the awake time. Time in bed is derived from
// those two instants (Garmin sends no in-bed total). `validation` MANUAL / AUTO_MANUAL -> MANUAL,
// *_TENTATIVE -> TENTATIVE, the rest (DEVICE, AUTO_FINAL, ENHANCED_FINAL) -> AUTOMATIC.
// Hypnogram: spans of deep / light / rem / awake / unmeasurable -> DEEP / LIGHT / REM / AWAKE /
// UNKNOWN, in time order. Breathing: the sleep's own `timeOffsetSleepRespiration`, else the
// all-day respiration readings inside the night. HRV: the HRV summary of the same calendar date
// (`lastNightAvg` is RMSSD in ms; `hrvValues` are 5-minute RMSSD readings).
// Cannot map: `sleepScores` per component (no model field for their qualifiers; the values are
// kept as contributors), `lastNight5MinHigh`; Garmin sends no heart-rate series for sleep.
import { type CodeOf, SleepLevel, SleepUploadType } from '../../../model/enums.ts';
import type { Sleep } from '../../../model/sleep.ts';
import { localizationOf, type NormalizeContext, statsOf } from '../../../provider-kit/normalize/normalize.ts';
import { sumOrNull } from '../../../provider-kit/normalize/units.ts';
import { isNumber, numberOrNull, offsetMinutesOf, offsetPoints, textOrNull, wireAt } from './time.ts';
import type { GarminHrv, GarminRespiration, GarminSleep } from './types.ts';

export type GarminSleepPayload = {
  sleeps: readonly GarminSleep[];
  hrv?: readonly GarminHrv[];
  allDayRespiration?: readonly GarminRespiration[];
};

type Level = CodeOf<typeof SleepLevel>;
const spanLevels: Readonly<Record<string, Level>> = {
  deep: SleepLevel.DEEP,
  light: SleepLevel.LIGHT,
  rem: SleepLevel.REM,
  awake: SleepLevel.AWAKE,
  unmeasurable: SleepLevel.UNKNOWN,
};

function uploadType(validation: string | undefined): CodeOf<typeof SleepUploadType> {
  const value = (textOrNull(validation) ?? '').toUpperCase();
  if (value === 'MANUAL' || value === 'AUTO_MANUAL') return SleepUploadType.MANUAL;
  if (value.endsWith('TENTATIVE')) return SleepUploadType.TENTATIVE;
  return value === '' ? SleepUploadType.UNKNOWN : SleepUploadType.AUTOMATIC;
}

function spansOf(sleep: GarminSleep): { start: number; end: number; level: Level }[] {
  const spans: { start: number; end: number; level: Level }[] = [];
  for (const [name, list] of Object.entries(sleep.sleepLevelsMap ?? {})) {
    const level = spanLevels[name.toLowerCase()];
    if (level === undefined || !Array.isArray(list)) continue;
    for (const span of list as readonly { startTimeInSeconds?: number; endTimeInSeconds?: number }[]) {
      if (!span || !isNumber(span.startTimeInSeconds) || !isNumber(span.endTimeInSeconds)) continue;
      spans.push({ start: span.startTimeInSeconds, end: span.endTimeInSeconds, level });
    }
  }
  return spans.sort((a, b) => a.start - b.start);
}

export function normalizeGarminSleep(
  sleep: GarminSleep,
  hrv: GarminHrv | undefined,
  respiration: readonly GarminRespiration[],
  context: NormalizeContext,
): Sleep | null {
  if (!isNumber(sleep.startTimeInSeconds)) return null;
  const offset = offsetMinutesOf(sleep, context);
  const start = sleep.startTimeInSeconds;
  const spans = spansOf(sleep);
  const asleep = sumOrNull(
    sleep.deepSleepDurationInSeconds,
    sleep.lightSleepDurationInSeconds,
    sleep.remSleepInSeconds,
    sleep.unmeasurableSleepInSeconds,
  );
  const lastSpanEnd = spans.reduce((end, span) => Math.max(end, span.end), start);
  const end =
    spans.length > 0
      ? lastSpanEnd
      : start + (sumOrNull(asleep, sleep.awakeDurationInSeconds) ?? sleep.durationInSeconds ?? 0);
  const inBed = Math.max(0, end - start);

  let remEvents = 0;
  let wakeEvents = 0;
  let previous: Level | null = null;
  const hypnogram: { timestamp: string; level: Level }[] = [];
  for (const span of spans) {
    if (span.level === previous) continue;
    if (span.level === SleepLevel.REM) remEvents++;
    if (span.level === SleepLevel.AWAKE && previous !== null) wakeEvents++;
    previous = span.level;
    hypnogram.push({ timestamp: wireAt(span.start, offset), level: span.level });
  }

  const ownBreaths = offsetPoints(sleep.timeOffsetSleepRespiration, start, (value) => value > 0);
  const breaths =
    ownBreaths.length > 0
      ? ownBreaths
      : respiration
          .flatMap((reading) =>
            isNumber(reading.startTimeInSeconds)
              ? offsetPoints(
                  reading.timeOffsetEpochToBreaths,
                  reading.startTimeInSeconds,
                  (value) => value > 0,
                )
              : [],
          )
          .filter((point) => point.atSeconds >= start && point.atSeconds <= end);
  const breathSamples = breaths.map((point) => ({
    timestamp: wireAt(point.atSeconds, offset),
    breaths_per_min: point.value,
  }));
  const breathStats = statsOf(breathSamples.map((sample) => sample.breaths_per_min));
  const spo2 = offsetPoints(sleep.timeOffsetSleepSpo2, start, (value) => value > 0 && value <= 100).map(
    (point) => ({ timestamp: wireAt(point.atSeconds, offset), percentage: point.value, type: 0 as const }),
  );
  const hrvSamples =
    hrv && isNumber(hrv.startTimeInSeconds)
      ? offsetPoints(hrv.hrvValues, hrv.startTimeInSeconds, (value) => value > 0).map((point) => ({
          timestamp: wireAt(point.atSeconds, offset),
          hrv_rmssd: point.value,
        }))
      : [];
  const score = numberOrNull(sleep.overallSleepScore?.value);
  const contributors: Record<string, number> = {};
  for (const [name, entry] of Object.entries(sleep.sleepScores ?? {}))
    if (entry && isNumber(entry.value)) contributors[name] = entry.value;
  const awake = numberOrNull(sleep.awakeDurationInSeconds);

  return {
    metadata: {
      summary_id: textOrNull(sleep.summaryId),
      start_time: wireAt(start, offset),
      end_time: wireAt(end, offset),
      upload_type: uploadType(sleep.validation),
      is_nap: false,
      timestamp_localization: localizationOf(offset),
    },
    sleep_durations_data: {
      asleep: {
        duration_asleep_state_seconds: asleep,
        duration_deep_sleep_state_seconds: numberOrNull(sleep.deepSleepDurationInSeconds),
        duration_light_sleep_state_seconds: numberOrNull(sleep.lightSleepDurationInSeconds),
        duration_REM_sleep_state_seconds: numberOrNull(sleep.remSleepInSeconds),
        num_REM_events: spans.length > 0 ? remEvents : null,
      },
      awake: {
        duration_awake_state_seconds: awake,
        num_wakeup_events: spans.length > 0 ? wakeEvents : null,
      },
      other: {
        duration_in_bed_seconds: inBed,
        duration_unmeasurable_sleep_seconds: numberOrNull(sleep.unmeasurableSleepInSeconds),
      },
      hypnogram_samples: hypnogram,
      sleep_efficiency: asleep !== null && inBed > 0 ? Math.min(100, (asleep / inBed) * 100) : null,
    },
    heart_rate_data: hrv
      ? {
          summary: { avg_hrv_rmssd: numberOrNull(hrv.lastNightAvg) },
          detailed: { hrv_samples_rmssd: hrvSamples },
        }
      : null,
    respiration_data: {
      breaths_data:
        breathSamples.length > 0
          ? {
              avg_breaths_per_min: breathStats.avg,
              min_breaths_per_min: breathStats.min,
              max_breaths_per_min: breathStats.max,
              samples: breathSamples,
              start_time: breathSamples[0]?.timestamp ?? null,
              end_time: breathSamples[breathSamples.length - 1]?.timestamp ?? null,
            }
          : null,
      oxygen_saturation_data:
        spo2.length > 0
          ? {
              avg_saturation_percentage: statsOf(spo2.map((sample) => sample.percentage)).avg,
              samples: spo2,
              start_time: spo2[0]?.timestamp ?? null,
              end_time: spo2[spo2.length - 1]?.timestamp ?? null,
            }
          : null,
    },
    scores: { sleep: score, sleep_score: score },
    data_enrichment: {
      sleep_score: score,
      sleep_contributors: Object.keys(contributors).length > 0 ? contributors : null,
    },
  };
}

export function normalizeSleeps(payload: GarminSleepPayload, context: NormalizeContext): Sleep[] {
  const hrvByDate = new Map<string, GarminHrv>();
  for (const hrv of payload.hrv ?? [])
    if (typeof hrv?.calendarDate === 'string') hrvByDate.set(hrv.calendarDate, hrv);
  const records: Sleep[] = [];
  for (const sleep of payload.sleeps) {
    if (!sleep || typeof sleep !== 'object') continue;
    const record = normalizeGarminSleep(
      sleep,
      typeof sleep.calendarDate === 'string' ? hrvByDate.get(sleep.calendarDate) : undefined,
      payload.allDayRespiration ?? [],
      context,
    );
    if (record) records.push(record);
  }
  return records;
}

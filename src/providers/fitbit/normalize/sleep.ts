// Google Health `sleep` sessions (+ the nightly HRV and respiratory rate of the wake-up date) ->
// Sleep, one per data point, summary_id = the data point id.
//
// Stages: AWAKE / LIGHT / DEEP / REM (stages sleep) and ASLEEP / RESTLESS / AWAKE (classic sleep)
// -> AWAKE / LIGHT / DEEP / REM / SLEEPING / AWAKE (restless is not counted asleep, as Google's
// summary does). Durations come from the summary (int64 minutes), else from the stages. Time in
// bed is `minutesInSleepPeriod`, else derived from the interval's start and end. `metadata.nap`
// -> is_nap; `recordingMethod` MANUAL -> upload_type MANUAL, else AUTOMATIC.
// The nightly companions are daily types dated by the wake-up day: `daily-heart-rate-variability`
// (average RMSSD, ms), `daily-respiratory-rate` (breaths/min) and
// `daily-sleep-temperature-derivations` (nightly − baseline skin temperature, °C).
// Light, deep and REM exist only for a STAGES sleep: a CLASSIC one (the stages algorithm did not
// run or was rejected: `metadata.stagesStatus` other than SUCCEEDED) measured no stage, so those
// durations and the REM count are null, not 0 (v4 Sleep.SleepType, SleepMetadata.stagesStatus).
// Cannot map: out-of-bed segments (counted as events only), `processed`.
import { type CodeOf, SleepLevel, SleepUploadType } from '../../../model/enums.ts';
import type { Sleep } from '../../../model/sleep.ts';
import { localIsoDate } from '../../../model/time.ts';
import { localizationOf, type NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import { instantMs, int64, isoOf, numberOrNull, offsetMinutes, pointId, wire } from './time.ts';
import type { DataPoint } from './types.ts';

export type FitbitSleepPayload = {
  sleep: readonly DataPoint[];
  'daily-heart-rate-variability'?: readonly DataPoint[];
  'daily-respiratory-rate'?: readonly DataPoint[];
  'daily-sleep-temperature-derivations'?: readonly DataPoint[];
};

type Level = CodeOf<typeof SleepLevel>;
const stageLevels: Readonly<Record<string, Level>> = {
  AWAKE: SleepLevel.AWAKE,
  LIGHT: SleepLevel.LIGHT,
  DEEP: SleepLevel.DEEP,
  REM: SleepLevel.REM,
  ASLEEP: SleepLevel.SLEEPING,
  RESTLESS: SleepLevel.AWAKE,
};
const ASLEEP_STAGES = new Set(['LIGHT', 'DEEP', 'REM', 'ASLEEP']);
const SLEEP_STAGES = new Set(['LIGHT', 'DEEP', 'REM']);

/**
 * Whether the sleep's stages were measured: a STAGES sleep whose stages algorithm succeeded (an
 * absent status or type is judged by the segments themselves).
 */
function hasSleepStages(
  sleep: NonNullable<DataPoint['sleep']>,
  stages: readonly { stage: { type?: string } }[],
) {
  const status = sleep.metadata?.stagesStatus;
  if (status !== undefined && status !== 'SUCCEEDED' && status !== 'STAGES_STATE_UNSPECIFIED') return false;
  if (sleep.type === 'CLASSIC') return false;
  if (sleep.type === 'STAGES') return true;
  return stages.some((entry) => SLEEP_STAGES.has(entry.stage.type ?? ''));
}

export function normalizeSleeps(payload: FitbitSleepPayload, context: NormalizeContext): Sleep[] {
  const hrv = new Map<string, number>();
  for (const point of payload['daily-heart-rate-variability'] ?? []) {
    const day = isoOf(point?.dailyHeartRateVariability?.date);
    const value = numberOrNull(point?.dailyHeartRateVariability?.averageHeartRateVariabilityMilliseconds);
    if (day && value !== null) hrv.set(day, value);
  }
  const breaths = new Map<string, number>();
  for (const point of payload['daily-respiratory-rate'] ?? []) {
    const day = isoOf(point?.dailyRespiratoryRate?.date);
    const value = numberOrNull(point?.dailyRespiratoryRate?.breathsPerMinute);
    if (day && value !== null && value > 0) breaths.set(day, value);
  }
  const temperature = new Map<string, number>();
  for (const point of payload['daily-sleep-temperature-derivations'] ?? []) {
    const derived = point?.dailySleepTemperatureDerivations;
    const day = isoOf(derived?.date);
    const nightly = numberOrNull(derived?.nightlyTemperatureCelsius);
    const baseline = numberOrNull(derived?.baselineTemperatureCelsius);
    if (day && nightly !== null && baseline !== null && nightly > 0 && baseline > 0)
      temperature.set(day, nightly - baseline);
  }
  const records: Sleep[] = [];
  for (const point of payload.sleep) {
    const sleep = point?.sleep;
    const id = pointId(point?.name);
    const startMs = instantMs(sleep?.interval?.startTime);
    const endMs = instantMs(sleep?.interval?.endTime);
    if (!sleep || !id || startMs === null || endMs === null || endMs < startMs) continue;
    const interval = sleep.interval ?? {};
    const offset = offsetMinutes(startMs, interval.startUtcOffset, interval.civilStartTime, context);
    const endOffset = offsetMinutes(endMs, interval.endUtcOffset, interval.civilEndTime, context);
    const stageSeconds: Record<string, number> = {};
    const hypnogram: { timestamp: string; level: Level }[] = [];
    let remEvents = 0;
    let wakeEvents = 0;
    let previous: Level | null = null;
    const stages = (Array.isArray(sleep.stages) ? sleep.stages : [])
      .map((stage) => ({ stage, start: instantMs(stage?.startTime), end: instantMs(stage?.endTime) }))
      .filter(
        (entry): entry is { stage: NonNullable<typeof entry.stage>; start: number; end: number } =>
          entry.start !== null && entry.end !== null && typeof entry.stage?.type === 'string',
      )
      .sort((a, b) => a.start - b.start);
    for (const { stage, start, end } of stages) {
      const type = stage.type ?? '';
      stageSeconds[type] = (stageSeconds[type] ?? 0) + Math.max(0, end - start) / 1000;
      const level = stageLevels[type] ?? SleepLevel.UNKNOWN;
      if (level === previous) continue;
      if (level === SleepLevel.REM) remEvents++;
      if (level === SleepLevel.AWAKE && previous !== null) wakeEvents++;
      previous = level;
      hypnogram.push({ timestamp: wire(start, offset), level });
    }
    const summary = sleep.summary ?? {};
    const minutes = (value: Parameters<typeof int64>[0]) => {
      const parsed = int64(value);
      return parsed === null ? null : parsed * 60;
    };
    const fromStages = (types: string[]) => {
      const total = types.reduce((sum, type) => sum + (stageSeconds[type] ?? 0), 0);
      return stages.length > 0 ? total : null;
    };
    const staged = hasSleepStages(sleep, stages);
    const fromSleepStages = (type: string) => (staged ? fromStages([type]) : null);
    const asleep = minutes(summary.minutesAsleep) ?? fromStages([...ASLEEP_STAGES]);
    const inBed = minutes(summary.minutesInSleepPeriod) ?? (endMs - startMs) / 1000;
    const wakeDay = localIsoDate(endMs, endOffset);
    const avgBreaths = breaths.get(wakeDay) ?? null;
    const manual = point.dataSource?.recordingMethod === 'MANUAL';
    records.push({
      metadata: {
        summary_id: id,
        start_time: wire(startMs, offset),
        end_time: wire(endMs, endOffset),
        upload_type: manual ? SleepUploadType.MANUAL : SleepUploadType.AUTOMATIC,
        is_nap: sleep.metadata?.nap === true,
        timestamp_localization: localizationOf(offset),
      },
      sleep_durations_data: {
        asleep: {
          duration_asleep_state_seconds: asleep,
          duration_light_sleep_state_seconds: fromSleepStages('LIGHT'),
          duration_deep_sleep_state_seconds: fromSleepStages('DEEP'),
          duration_REM_sleep_state_seconds: fromSleepStages('REM'),
          num_REM_events: staged && stages.length > 0 ? remEvents : null,
        },
        awake: {
          duration_awake_state_seconds: minutes(summary.minutesAwake) ?? fromStages(['AWAKE', 'RESTLESS']),
          num_wakeup_events: stages.length > 0 ? wakeEvents : null,
          sleep_latency_seconds: minutes(summary.minutesToFallAsleep),
          wake_up_latency_seconds: minutes(summary.minutesAfterWakeUp),
        },
        other: { duration_in_bed_seconds: inBed },
        hypnogram_samples: hypnogram,
        sleep_efficiency: asleep !== null && inBed > 0 ? Math.min(100, (asleep / inBed) * 100) : null,
      },
      heart_rate_data: hrv.has(wakeDay) ? { summary: { avg_hrv_rmssd: hrv.get(wakeDay) ?? null } } : null,
      respiration_data: avgBreaths === null ? null : { breaths_data: { avg_breaths_per_min: avgBreaths } },
      temperature_data: temperature.has(wakeDay) ? { delta: temperature.get(wakeDay) ?? null } : null,
    });
  }
  return records;
}

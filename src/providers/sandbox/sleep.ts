// Sleep records: the night that starts on the day, and a nap on some days.
import {
  HeartRateContext,
  OxygenSaturationType,
  RecoveryLevel,
  SleepLevel,
  SleepUploadType,
} from '../../model/enums.ts';
import type { Sleep } from '../../model/sleep.ts';
import type { DayContext } from './context.ts';
import { isLutealPhase } from './cycle.ts';
import { deviceData } from './device.ts';
import {
  buildHypnogram,
  type StageDurations,
  type StageSegment,
  stageAt,
  stageDurations,
} from './hypnogram.ts';
import { Random, stableUuid } from './random.ts';
import { clamp, max, mean, min, round, sum } from './series.ts';
import { napWindow, sleepWindow, type TimeWindow } from './sleep-window.ts';

const FIVE_MINUTES_MS = 300_000;

export interface SleepSession {
  window: TimeWindow;
  isNap: boolean;
  streamKey: string;
  segments: StageSegment[];
  durations: StageDurations;
  score: number;
  readiness: number;
}

/** The day's sessions (night first), with the numbers other generators reuse. */
export function sleepSessions(context: DayContext): SleepSession[] {
  const sessions: SleepSession[] = [];
  const night = sleepWindow(context.seed, context.date, context.offsetMinutes);
  const nap = napWindow(context.seed, context.date, context.offsetMinutes);
  for (const [window, isNap] of [[night, false], ...(nap ? [[nap, true] as const] : [])] as const) {
    const streamKey = `${context.seed}|${context.date}|sleep|${isNap ? 'nap' : 'night'}`;
    const segments = buildHypnogram(streamKey, window, isNap);
    const durations = stageDurations(segments);
    const score = sleepScore(durations, isNap);
    sessions.push({
      window,
      isNap,
      streamKey,
      segments,
      durations,
      score,
      readiness: readinessScore(streamKey, score),
    });
  }
  return sessions;
}

/** 0-100 from total sleep, efficiency and the deep and REM shares. */
function sleepScore(durations: StageDurations, isNap: boolean): number {
  if (isNap) return Math.round(clamp(40 + (durations.asleepSeconds / 60) * 1.2, 0, 100));
  const hours = durations.asleepSeconds / 3600;
  const efficiency = durations.asleepSeconds / durations.inBedSeconds;
  const deepShare = durations.deepSeconds / durations.asleepSeconds;
  const remShare = durations.remSeconds / durations.asleepSeconds;
  const score =
    45 * clamp(hours / 8, 0, 1) +
    25 * clamp((efficiency - 0.75) / 0.2, 0, 1) +
    15 * clamp(deepShare / 0.2, 0, 1) +
    15 * clamp(remShare / 0.22, 0, 1);
  return Math.round(clamp(score, 0, 100));
}

function readinessScore(streamKey: string, sleepScoreValue: number): number {
  return Math.round(
    clamp(sleepScoreValue * 0.7 + new Random(streamKey, 'readiness').between(15, 35), 0, 100),
  );
}

function recoveryLevel(readiness: number) {
  if (readiness >= 85) return RecoveryLevel.VERY_GOOD;
  if (readiness >= 70) return RecoveryLevel.GOOD;
  if (readiness >= 60) return RecoveryLevel.OK;
  if (readiness >= 50) return RecoveryLevel.COMPROMISED;
  if (readiness >= 40) return RecoveryLevel.POOR;
  return RecoveryLevel.VERY_POOR;
}

const STAGE_HEART_OFFSET: Record<number, number> = {
  [SleepLevel.AWAKE]: 9,
  [SleepLevel.LIGHT]: 2,
  [SleepLevel.DEEP]: -3,
  [SleepLevel.REM]: 5,
};

export function generateSleep(context: DayContext): Sleep[] {
  return sleepSessions(context).map((session) => sleepRecord(context, session));
}

function sleepRecord(context: DayContext, session: SleepSession): Sleep {
  const { profile } = context;
  const { window, segments, durations, streamKey } = session;
  const random = new Random(streamKey, 'vitals');
  const times: number[] = [];
  for (let at = window.startMs; at < window.endMs; at += FIVE_MINUTES_MS) times.push(at);
  const stages = times.map((at) => stageAt(segments, at));
  const heartRate = stages.map((stage) =>
    Math.round(profile.restingHr + (STAGE_HEART_OFFSET[stage] ?? 0) + random.normal(0, 1.5)),
  );
  const hrv = stages.map((stage) =>
    round(profile.baselineHrvMs * (stage === SleepLevel.DEEP ? 1.25 : 1) + random.normal(0, 4), 1),
  );
  const breaths = stages.map((stage) =>
    round(14 + (stage === SleepLevel.REM ? 1.2 : 0) + random.normal(0, 0.6), 1),
  );
  const oxygenTimes = times.filter((_, index) => index % 2 === 0);
  const oxygen = oxygenTimes.map(() => round(clamp(random.normal(96.5, 1), 90, 100), 1));
  const snores = snoringEvents(random, window, session.isNap);
  const efficiency = round((durations.asleepSeconds / durations.inBedSeconds) * 100, 2);
  const temperatureDelta = round(random.normal(0, 0.12) + (isLutealPhase(context) ? 0.3 : 0), 2);
  const sample = <T>(build: () => T[]): T[] => (context.withSamples ? build() : []);
  const respirationWindow = {
    start_time: context.time(window.startMs),
    end_time: context.time(window.endMs),
  };
  return {
    metadata: {
      start_time: context.time(window.startMs),
      end_time: context.time(window.endMs),
      upload_type: SleepUploadType.AUTOMATIC,
      is_nap: session.isNap,
      summary_id: stableUuid(context.seed, 'sleep', context.date, session.isNap ? 'nap' : 'night'),
      timestamp_localization: context.timestampLocalization,
    },
    sleep_durations_data: {
      asleep: {
        duration_asleep_state_seconds: durations.asleepSeconds,
        duration_deep_sleep_state_seconds: durations.deepSeconds,
        duration_light_sleep_state_seconds: durations.lightSeconds,
        duration_REM_sleep_state_seconds: durations.remSeconds,
        num_REM_events: durations.remEvents,
      },
      awake: {
        duration_awake_state_seconds: durations.awakeSeconds,
        duration_long_interruption_seconds: durations.longInterruptionSeconds,
        duration_short_interruption_seconds: durations.shortInterruptionSeconds,
        num_out_of_bed_events: 0,
        num_wakeup_events: durations.wakeupEvents,
        sleep_latency_seconds: durations.latencySeconds,
        wake_up_latency_seconds: durations.wakeUpLatencySeconds,
      },
      other: { duration_in_bed_seconds: durations.inBedSeconds, duration_unmeasurable_sleep_seconds: 0 },
      hypnogram_samples: sample(() =>
        segments.map((segment) => ({ timestamp: context.time(segment.startMs), level: segment.level })),
      ),
      sleep_efficiency: efficiency,
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: round(mean(heartRate), 2),
        avg_hrv_rmssd: round(mean(hrv), 2),
        avg_hrv_sdnn: null,
        hr_zone_data: [],
        max_hr_bpm: max(heartRate),
        min_hr_bpm: min(heartRate),
        resting_hr_bpm: min(heartRate),
        user_max_hr_bpm: profile.maxHr,
      },
      detailed: {
        hr_samples: sample(() =>
          times.map((at, index) => ({
            timestamp: context.time(at),
            bpm: heartRate[index] ?? null,
            context: HeartRateContext.NOT_ACTIVE,
          })),
        ),
        hrv_samples_rmssd: sample(() =>
          times.map((at, index) => ({ timestamp: context.time(at), hrv_rmssd: hrv[index] ?? null })),
        ),
        hrv_samples_sdnn: [],
      },
    },
    respiration_data: {
      breaths_data: {
        avg_breaths_per_min: round(mean(breaths), 2),
        max_breaths_per_min: max(breaths),
        min_breaths_per_min: min(breaths),
        on_demand_reading: false,
        samples: sample(() =>
          times.map((at, index) => ({
            timestamp: context.time(at),
            breaths_per_min: breaths[index] ?? null,
          })),
        ),
        ...respirationWindow,
      },
      oxygen_saturation_data: {
        avg_saturation_percentage: round(mean(oxygen), 2),
        samples: sample(() =>
          oxygenTimes.map((at, index) => ({
            timestamp: context.time(at),
            percentage: oxygen[index] ?? null,
            type: OxygenSaturationType.BLOOD_SPO2,
          })),
        ),
        ...respirationWindow,
      },
      snoring_data: {
        num_snoring_events: snores.length,
        total_snoring_duration_seconds: sum(snores.map((snore) => snore.seconds)),
        samples: sample(() =>
          snores.map((snore) => ({ timestamp: context.time(snore.atMs), duration_seconds: snore.seconds })),
        ),
        ...respirationWindow,
      },
    },
    readiness_data: { readiness: session.readiness, recovery_level: recoveryLevel(session.readiness) },
    temperature_data: { delta: temperatureDelta },
    scores: { sleep: session.score, sleep_score: session.score },
    // data_enrichment is left to Tributary's computed scores (features/scores, docs/scores.md); the
    // provider's own score is `scores`.
    data_enrichment: null,
    device_data: deviceData(context, 'ring', window.endMs + 15 * 60_000),
  };
}

function snoringEvents(random: Random, window: TimeWindow, isNap: boolean) {
  const count = isNap ? 0 : random.int(0, 6);
  const events: { atMs: number; seconds: number }[] = [];
  for (let index = 0; index < count; index++) {
    const atMs =
      window.startMs + Math.floor((random.between(0.1, 0.9) * (window.endMs - window.startMs)) / 1000) * 1000;
    events.push({ atMs, seconds: random.int(20, 300) });
  }
  return events.sort((left, right) => left.atMs - right.atMs);
}

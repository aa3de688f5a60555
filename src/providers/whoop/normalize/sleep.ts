// WHOOP sleep (+ the recovery that names it) -> Sleep.
//
// A sleep in WHOOP's v1 shape (a long `id`, no `cycle_id`) is read the same way; its id is
// written in decimal (the model keys records by a string). Cannot map: `sleep_needed` (baseline and debt/strain/nap adjustments: no slot),
// `sleep_consistency_percentage`, `sleep_cycle_count` (cycles are not REM events), `v1_id`, and
// the recovery's `skin_temp_celsius` (Sleep's temperature is a deviation from baseline; the
// absolute value goes to Body) and `user_calibrating`. Durations are ms -> s. WHOOP's sleep
// performance (sleep obtained / sleep needed) is its sleep score. `disturbance_count` is the
// number of wake-ups.
import { SleepUploadType } from '../../../model/enums.ts';
import type { Sleep } from '../../../model/sleep.ts';
import type { NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import { millisecondsToSeconds, sumOrNull } from '../../../provider-kit/normalize/units.ts';
import { heartRate } from '../../../provider-kit/normalize/measures.ts';
import { idText, instant, offsetOf, wire } from './common.ts';
import type { WhoopRecovery, WhoopSleep } from './types.ts';

export type WhoopSleepPayload = {
  sleep: readonly WhoopSleep[];
  recovery?: readonly WhoopRecovery[];
};

export function normalizeSleepRecord(
  sleep: WhoopSleep,
  recovery: WhoopRecovery | undefined,
  context: NormalizeContext,
): Sleep {
  const offset = offsetOf(sleep.timezone_offset, context);
  const score = sleep.score ?? null;
  const stages = score?.stage_summary ?? null;
  const seconds = (milli: number | undefined) => (milli === undefined ? null : millisecondsToSeconds(milli));
  const light = seconds(stages?.total_light_sleep_time_milli);
  const deep = seconds(stages?.total_slow_wave_sleep_time_milli);
  const rem = seconds(stages?.total_rem_sleep_time_milli);
  const performance = score?.sleep_performance_percentage ?? null;
  const recovered = recovery?.score ?? null;
  const start_time = wire(sleep.start, offset);
  const end_time = wire(sleep.end, offset);
  const spo2 = recovered?.spo2_percentage ?? null;
  // Time in bed is the span of the sleep when WHOOP has not scored (or not summed) it.
  const span = (instant(sleep.end) - instant(sleep.start)) / 1000;
  const inBed = seconds(stages?.total_in_bed_time_milli) ?? (span > 0 ? span : null);
  return {
    metadata: {
      start_time,
      end_time,
      upload_type:
        sleep.score_state === 'PENDING_SCORE' ? SleepUploadType.TENTATIVE : SleepUploadType.AUTOMATIC,
      is_nap: sleep.nap,
      summary_id: idText('sleep', sleep.id),
      timestamp_localization: offset === 0 ? 0 : 1,
    },
    sleep_durations_data: stages
      ? {
          asleep: {
            duration_asleep_state_seconds: sumOrNull(light, deep, rem),
            duration_light_sleep_state_seconds: light,
            duration_deep_sleep_state_seconds: deep,
            duration_REM_sleep_state_seconds: rem,
          },
          awake: {
            duration_awake_state_seconds: seconds(stages.total_awake_time_milli),
            num_wakeup_events: stages.disturbance_count,
          },
          other: {
            duration_in_bed_seconds: inBed,
            duration_unmeasurable_sleep_seconds: seconds(stages.total_no_data_time_milli),
          },
          sleep_efficiency: score?.sleep_efficiency_percentage ?? null,
        }
      : { other: { duration_in_bed_seconds: inBed } },
    heart_rate_data: recovered
      ? {
          summary: {
            resting_hr_bpm: heartRate(recovered.resting_heart_rate),
            avg_hrv_rmssd: recovered.hrv_rmssd_milli,
          },
        }
      : null,
    respiration_data: {
      breaths_data: { avg_breaths_per_min: score?.respiratory_rate ?? null, start_time, end_time },
      oxygen_saturation_data:
        spo2 === null ? null : { avg_saturation_percentage: spo2, start_time, end_time },
    },
    readiness_data: recovered ? { readiness: recovered.recovery_score } : null,
    scores: { sleep: performance, sleep_score: performance },
    data_enrichment: {
      sleep_score: performance,
      readiness_score: recovered?.recovery_score ?? null,
    },
  };
}

export function normalizeSleeps(payload: WhoopSleepPayload, context: NormalizeContext): Sleep[] {
  // Keyed by the id's text: a v1 recovery names its sleep by the same long the v1 sleep carries.
  const recoveryBySleep = new Map<string, WhoopRecovery>();
  for (const recovery of payload.recovery ?? []) recoveryBySleep.set(String(recovery.sleep_id), recovery);
  return payload.sleep.map((sleep) =>
    normalizeSleepRecord(sleep, recoveryBySleep.get(String(sleep.id)), context),
  );
}

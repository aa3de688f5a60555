// WHOOP cycle (+ its recovery and main sleep) -> Daily.
//
// A cycle runs from falling asleep to falling asleep again, not midnight to midnight. The model
// keys a Daily on a calendar day, so a cycle becomes the day it is lived in: the local date 12 h
// after its start (asleep at 23:30 on the 23rd or at 01:00 on the 24th -> the 24th), which is how
// WHOOP's app labels it. Totals stay the cycle's own. Cannot map: recovery `skin_temp_celsius`
// (Daily has no temperature; it goes to Body) and `user_calibrating`; cycle `created_at`,
// `updated_at`. Energy is kJ -> kcal (4.184); WHOOP does not split active from resting energy.
import type { Daily } from '../../../model/daily.ts';
import { localIsoDate } from '../../../model/time.ts';
import { dayBoundsOf, type NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import { kilojoulesToKilocalories } from '../../../provider-kit/normalize/units.ts';
import { heartRate } from '../../../provider-kit/normalize/measures.ts';
import { instant, offsetOf, uploadTypeOf } from './common.ts';
import type { WhoopCycle, WhoopRecovery, WhoopSleep } from './types.ts';

export type WhoopCyclePayload = {
  cycle: readonly WhoopCycle[];
  recovery?: readonly WhoopRecovery[];
  sleep?: readonly WhoopSleep[];
};

const HALF_DAY_MS = 12 * 3_600_000;

/** The calendar day a cycle is lived in (see the file comment). */
export function cycleDay(cycle: WhoopCycle, offsetMinutes: number): string {
  return localIsoDate(instant(cycle.start) + HALF_DAY_MS, offsetMinutes);
}

export function normalizeCycle(
  cycle: WhoopCycle,
  recovery: WhoopRecovery | undefined,
  mainSleep: WhoopSleep | undefined,
  context: NormalizeContext,
): Daily {
  const offset = offsetOf(cycle.timezone_offset, context);
  const score = cycle.score ?? null;
  const recovered = recovery?.score ?? null;
  const sleepPerformance = mainSleep?.score?.sleep_performance_percentage ?? null;
  return {
    metadata: {
      ...dayBoundsOf(cycleDay(cycle, offset), offset),
      upload_type: uploadTypeOf(cycle.score_state),
      timestamp_localization: offset === 0 ? 0 : 1,
    },
    strain_data: { strain_level: score?.strain ?? null },
    calories_data: { total_burned_calories: score ? kilojoulesToKilocalories(score.kilojoule) : null },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: heartRate(score?.average_heart_rate),
        max_hr_bpm: heartRate(score?.max_heart_rate),
        resting_hr_bpm: heartRate(recovered?.resting_heart_rate),
        avg_hrv_rmssd: recovered?.hrv_rmssd_milli ?? null,
      },
    },
    oxygen_data: { avg_saturation_percentage: recovered?.spo2_percentage ?? null },
    scores: { recovery: recovered?.recovery_score ?? null, sleep: sleepPerformance },
  };
}

export function normalizeCycles(payload: WhoopCyclePayload, context: NormalizeContext): Daily[] {
  const recoveryByCycle = new Map<number, WhoopRecovery>();
  for (const recovery of payload.recovery ?? []) recoveryByCycle.set(recovery.cycle_id, recovery);
  // The cycle's main sleep: its longest non-nap sleep (a cycle starts with it).
  const sleepByCycle = new Map<number, WhoopSleep>();
  for (const sleep of payload.sleep ?? []) {
    // A v1 sleep names no cycle.
    if (sleep.nap || sleep.cycle_id === undefined) continue;
    const current = sleepByCycle.get(sleep.cycle_id);
    const length = instant(sleep.end) - instant(sleep.start);
    if (!current || length > instant(current.end) - instant(current.start))
      sleepByCycle.set(sleep.cycle_id, sleep);
  }
  return payload.cycle.map((cycle) =>
    normalizeCycle(cycle, recoveryByCycle.get(cycle.id), sleepByCycle.get(cycle.id), context),
  );
}

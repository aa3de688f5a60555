// Recovery (readiness): HRV and resting heart rate against the person's own 21-day baseline and
// last night's sleep against a target, combined into one number through a logistic curve — the
// structure a wearable maker publishes for its recovery score (inputs: HRV, resting HR, sleep
// performance, respiratory rate; a ~3-week personal baseline; a 0–100 % result), with
// coefficients that are Tributary's own and stated here (docs/scores.md#recovery cites both).
// HRV is taken as ln RMSSD, the form the HRV-guided-training literature compares with a rolling
// baseline (Plews et al. 2012, 2013).
import { clamp } from './stats.ts';

export const RECOVERY = {
  intercept: 0.4,
  hrvWeight: 1.0,
  restingHrWeight: 0.5,
  sleepWeight: 4.0,
  /** z-scores are clipped to ±3 so one outlier night cannot saturate the curve by itself. */
  zLimit: 3,
  /** Sleep need: 8 h asleep (the middle of the 7–9 h adults are advised; Watson et al. 2015). */
  sleepTargetSeconds: 8 * 3600,
} as const;

export type RecoveryInput = {
  /** (ln RMSSD today − baseline mean) / spread. */
  hrvZ: number;
  /** (resting HR today − baseline mean) / spread. */
  restingHrZ: number;
  /** Seconds asleep in the night that ended this day. */
  asleepSeconds: number;
};

export type RecoveryResult = {
  score: number;
  contributors: { hrv_z: number; resting_hr_z: number; sleep_performance: number };
};

/** Sleep performance: time asleep over the target, capped at 1 (more than enough counts as enough). */
export const sleepPerformance = (asleepSeconds: number) =>
  clamp(asleepSeconds / RECOVERY.sleepTargetSeconds, 0, 1);

/**
 * recovery = 100 / (1 + e^(−x)), x = 0.4 + 1.0·z_hrv − 0.5·z_rhr + 4·(p − 1),
 * z clipped to ±3, p = sleep performance. Rounded to a whole number.
 */
export function recoveryScore(input: RecoveryInput): RecoveryResult {
  const r = RECOVERY;
  const hrvZ = clamp(input.hrvZ, -r.zLimit, r.zLimit);
  const rhrZ = clamp(input.restingHrZ, -r.zLimit, r.zLimit);
  const performance = sleepPerformance(input.asleepSeconds);
  const x = r.intercept + r.hrvWeight * hrvZ - r.restingHrWeight * rhrZ + r.sleepWeight * (performance - 1);
  const score = clamp(Math.round(100 / (1 + Math.exp(-x))), 0, 100);
  return { score, contributors: { hrv_z: hrvZ, resting_hr_z: rhrZ, sleep_performance: performance } };
}

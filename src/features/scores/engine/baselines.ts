// Per-user rolling baselines (docs/scores.md#baselines): the mean and spread of a signal over the
// 21 days before the day scored, and how far the day sits from it. Fewer than 14 values in the
// window: no baseline (null), never an estimate.
import { mean, sampleSd } from './stats.ts';

export const BASELINE = {
  /** Days before the scored day that form its baseline (the day itself is not in it). */
  windowDays: 21,
  /** Values the window must hold before a baseline (and anything built on it) is given. */
  minDays: 14,
} as const;

export type Baseline = { mean: number; sd: number; days: number };

export type Deviation = {
  value: number;
  baseline: number;
  sd: number;
  days: number;
  /** value − baseline, in the signal's unit. */
  deviation: number;
  /** (value − baseline) / baseline × 100. */
  deviation_percent: number;
  /** (value − baseline) / max(sd, sdFloor). */
  z: number;
};

/** The baseline of `window` (the values of the days before, missing days left out), or null. */
export function baselineOf(window: readonly number[]): Baseline | null {
  if (window.length < BASELINE.minDays) return null;
  return { mean: mean(window), sd: sampleSd(window), days: window.length };
}

/**
 * Today's value against its baseline. `sdFloor` keeps z finite on a perfectly flat history (a
 * spread smaller than the sensor's resolution says nothing): 1 bpm for resting HR, 0.05 for ln RMSSD.
 */
export function deviationOf(value: number, baseline: Baseline, sdFloor: number): Deviation {
  const spread = Math.max(baseline.sd, sdFloor);
  return {
    value,
    baseline: baseline.mean,
    sd: baseline.sd,
    days: baseline.days,
    deviation: value - baseline.mean,
    deviation_percent: baseline.mean === 0 ? 0 : ((value - baseline.mean) / baseline.mean) * 100,
    z: (value - baseline.mean) / spread,
  };
}

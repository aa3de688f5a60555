// The sleep score: Open Wearables' published method (the-momentum/open-wearables,
// backend/app/algorithms/sleep.py and config_algorithms.py; openwearables.io/docs/scores/sleep-score).
// Four pillars, each 0–100, weighted duration 40 %, stages 20 %, consistency 20 %,
// interruptions 20 %. Written here from the published description and parameters; the
// differences (rounding, the awakening count) are listed in docs/scores.md.
import { clamp, median } from './stats.ts';

export const SLEEP_SCORE = {
  weights: { duration: 0.4, stages: 0.2, consistency: 0.2, interruptions: 0.2 },
  duration: {
    optimalMinHours: 7,
    optimalMaxHours: 9,
    underK: 1.5,
    underMidpoint: 5,
    overK: 0.8,
    overMidpoint: 11,
  },
  stages: { deepTargetMinutes: 90, remTargetMinutes: 90, deepWeight: 0.5, remWeight: 0.5 },
  consistency: {
    graceMinutes: 15,
    lateWindowMinutes: 105,
    earlyWindowMinutes: 105,
    maxEarlyPenalty: 20,
    rollingNights: 14,
    /** Tributary's minimum: fewer earlier nights give no consistency pillar (and so no score). */
    minNights: 3,
  },
  interruptions: {
    durationPoints: 80,
    frequencyPoints: 20,
    frequencyFractions: [1, 1, 0.75, 0.5, 0] as const,
    graceMinutes: 20,
    penaltyWindowMinutes: 70,
  },
} as const;

/**
 * A sigmoid scaled to equal 100 at `anchor`: 100 · (1 + e^(k(anchor − m))) / (1 + e^(k(x − m))).
 * A negative k rises (under-sleeping), a positive k falls (over-sleeping).
 */
function anchoredSigmoid(x: number, k: number, midpoint: number, anchor: number): number {
  return (100 * (1 + Math.exp(k * (anchor - midpoint)))) / (1 + Math.exp(k * (x - midpoint)));
}

/** Duration pillar: 100 from 7 to 9 h asleep, a steep sigmoid below, a gentle one above (floor 50). */
export function durationPillar(asleepHours: number): number {
  const d = SLEEP_SCORE.duration;
  if (asleepHours >= d.optimalMinHours && asleepHours <= d.optimalMaxHours) return 100;
  if (asleepHours < d.optimalMinHours)
    return clamp(anchoredSigmoid(asleepHours, -d.underK, d.underMidpoint, d.optimalMinHours), 0, 100);
  return clamp(anchoredSigmoid(asleepHours, d.overK, d.overMidpoint, d.optimalMaxHours), 50, 100);
}

/** Stages pillar: deep and REM minutes each against a 90-minute target (linear, capped), averaged. */
export function stagesPillar(deepMinutes: number, remMinutes: number): number {
  const s = SLEEP_SCORE.stages;
  const part = (minutes: number, target: number) => clamp((minutes / target) * 100, 0, 100);
  return (
    part(deepMinutes, s.deepTargetMinutes) * s.deepWeight + part(remMinutes, s.remTargetMinutes) * s.remWeight
  );
}

/** Clock time as hours past noon (so a night's bedtimes around midnight stay continuous). */
export function hoursPastNoon(hour: number, minute: number): number {
  const hours = hour + minute / 60;
  return (hours < 12 ? hours + 24 : hours) - 12;
}

/**
 * Consistency pillar: tonight's bedtime against the median bedtime of earlier nights (hours past
 * noon). Within 15 minutes: 100. Later: minus 100 points per 105 minutes past the grace. Earlier:
 * the same slope, capped at 20 points. Null with fewer than `minNights` earlier nights.
 */
export function consistencyPillar(bedtime: number, earlierBedtimes: readonly number[]): number | null {
  const c = SLEEP_SCORE.consistency;
  const nights = earlierBedtimes.slice(-c.rollingNights);
  if (nights.length < c.minNights) return null;
  const diffMinutes = (bedtime - median(nights)) * 60;
  let penalty = 0;
  if (diffMinutes > c.graceMinutes) penalty = ((diffMinutes - c.graceMinutes) / c.lateWindowMinutes) * 100;
  else if (diffMinutes < -c.graceMinutes)
    penalty = Math.min(c.maxEarlyPenalty, ((-diffMinutes - c.graceMinutes) / c.earlyWindowMinutes) * 100);
  return clamp(100 - penalty, 0, 100);
}

/**
 * Interruptions pillar: 80 points for wake time after sleep onset (full up to 20 minutes, then
 * losing all 80 over the next 70), plus 20 points by the number of awakenings (0–1: 20, 2: 15,
 * 3: 10, 4 or more: 0).
 */
export function interruptionsPillar(awakeMinutes: number, awakenings: number): number {
  const i = SLEEP_SCORE.interruptions;
  const excess = Math.max(0, awakeMinutes - i.graceMinutes);
  const durationPart = Math.max(0, i.durationPoints - (excess / i.penaltyWindowMinutes) * i.durationPoints);
  const index = Math.min(Math.max(0, Math.floor(awakenings)), i.frequencyFractions.length - 1);
  return clamp(durationPart + i.frequencyPoints * i.frequencyFractions[index]!, 0, 100);
}

export type SleepScoreInput = {
  asleepSeconds: number;
  deepSeconds: number | null;
  remSeconds: number | null;
  awakeSeconds: number | null;
  awakenings: number | null;
  /** Tonight's bedtime and earlier nights' bedtimes, as hours past noon (oldest first). */
  bedtime: number;
  earlierBedtimes: readonly number[];
};

export type SleepScoreResult = {
  score: number | null;
  pillars: {
    duration: number;
    stages: number | null;
    consistency: number | null;
    interruptions: number | null;
  };
};

/** The weighted sum of the four pillars, rounded to a whole number; null when a pillar is unknown. */
export function sleepScore(input: SleepScoreInput): SleepScoreResult {
  const w = SLEEP_SCORE.weights;
  const duration = durationPillar(input.asleepSeconds / 3600);
  const stages =
    input.deepSeconds === null || input.remSeconds === null
      ? null
      : stagesPillar(input.deepSeconds / 60, input.remSeconds / 60);
  const consistency = consistencyPillar(input.bedtime, input.earlierBedtimes);
  const interruptions =
    input.awakeSeconds === null || input.awakenings === null
      ? null
      : interruptionsPillar(input.awakeSeconds / 60, input.awakenings);
  const pillars = { duration, stages, consistency, interruptions };
  if (stages === null || consistency === null || interruptions === null) return { score: null, pillars };
  const weighted =
    duration * w.duration + stages * w.stages + consistency * w.consistency + interruptions * w.interruptions;
  return { score: clamp(Math.round(weighted), 0, 100), pillars };
}

// Training load (docs/scores.md#training-load): Banister's TRIMP per session, summed per day; the
// acute:chronic workload ratio of rolling averages (7 and 28 days; Hulin et al. 2014, Gabbett
// 2016); Foster's weekly monotony and strain (Foster 1998).
import { mean, sampleSd } from './stats.ts';

export const TRAINING_LOAD = {
  /** Banister (1991): TRIMP = minutes · HRr · a · e^(b·HRr); a, b for men and for women. */
  banister: { male: { a: 0.64, b: 1.92 }, female: { a: 0.86, b: 1.67 } },
  acuteDays: 7,
  chronicDays: 28,
  /** Days of the window whose load must be known (a daily record or an activity) for a value. */
  minAcuteDays: 6,
  minChronicDays: 21,
} as const;

export type Sex = 'male' | 'female';

/**
 * One session's TRIMP. HRr = (avg − rest) / (max − rest), clipped to [0, 1]. Null when the
 * heart rates cannot give a reserve (max ≤ rest) or the duration is not positive.
 */
export function banisterTrimp(input: {
  minutes: number;
  avgHr: number;
  restingHr: number;
  maxHr: number;
  sex: Sex;
}): number | null {
  if (!(input.minutes > 0) || input.maxHr <= input.restingHr) return null;
  const reserve = Math.min(1, Math.max(0, (input.avgHr - input.restingHr) / (input.maxHr - input.restingHr)));
  const { a, b } = TRAINING_LOAD.banister[input.sex];
  return input.minutes * reserve * a * Math.exp(b * reserve);
}

export type LoadSummary = {
  /** The day's load (sum of its sessions' TRIMP; 0 on a known day without sessions). */
  load: number | null;
  acute_load: number | null;
  chronic_load: number | null;
  acwr: number | null;
  monotony: number | null;
  strain: number | null;
};

/**
 * From the daily loads of the 28 days ending with the scored day (oldest first; null where
 * unknown): the acute (7-day) and chronic (28-day) means of the known days, their ratio, and
 * Foster's monotony (7-day mean / sd) and strain (7-day sum × monotony).
 */
export function loadSummary(loads: readonly (number | null)[]): LoadSummary {
  const t = TRAINING_LOAD;
  const last = (n: number) => loads.slice(-n).filter((load): load is number => load !== null);
  const acuteWindow = last(t.acuteDays);
  const chronicWindow = last(t.chronicDays);
  const acute = acuteWindow.length >= t.minAcuteDays ? mean(acuteWindow) : null;
  const chronic = chronicWindow.length >= t.minChronicDays ? mean(chronicWindow) : null;
  const sd = acuteWindow.length >= t.minAcuteDays ? sampleSd(acuteWindow) : 0;
  const monotony = acute !== null && sd > 0 ? acute / sd : null;
  const weekly = acute !== null ? acuteWindow.reduce((total, load) => total + load, 0) : null;
  return {
    load: loads.at(-1) ?? null,
    acute_load: acute,
    chronic_load: chronic,
    acwr: acute !== null && chronic !== null && chronic > 0 ? acute / chronic : null,
    monotony,
    strain: weekly !== null && monotony !== null ? weekly * monotony : null,
  };
}

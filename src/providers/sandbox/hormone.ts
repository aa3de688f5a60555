// Hormone records: one morning urine test a day, following the cycle (see cycle.ts).
import type { Hormone } from '../../model/hormone.ts';
import { type DayContext, MINUTE_MS } from './context.ts';
import { cycleDay, hormoneLevels } from './cycle.ts';
import { Random } from './random.ts';
import { round } from './series.ts';

export function generateHormone(context: DayContext): Hormone[] {
  const random = new Random(context.seed, context.date, 'hormone');
  const testedAtMs = context.startMs + random.int(6 * 60 + 30, 8 * 60 + 30) * MINUTE_MS;
  const levels = hormoneLevels(cycleDay(context.seed, context.dayNumber), random);
  return [
    {
      timestamp: context.time(testedAtMs),
      lh_mIU_per_ml: round(levels.lh, 2),
      e3g_ng_per_ml: round(levels.e3g, 2),
      pdg_ug_per_ml: round(levels.pdg, 2),
      hcg_mIU_per_ml: round(levels.hcg, 2),
      fsh_mIU_per_ml: round(levels.fsh, 2),
    },
  ];
}

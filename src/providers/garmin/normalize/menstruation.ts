// Garmin Women's Health (menstrual cycle tracking, summary type `mct`) -> Menstruation, one per
// day a summary describes. A summary is the state of the user's cycle as of its last update
// (public integrations [C/?], MAPPING.md "Menstruation"): `periodStartDate` (the cycle's first
// day), `dayInCycle`, `periodLength`, `currentPhaseType` with `lengthOfCurrentPhase` and
// `daysUntilNextPhase`, `cycleLength` / `predictedCycleLength`, `isPredictedCycle`,
// `fertileWindowStart` (a day in the cycle) with `lengthOfFertileWindow`, and
// `lastUpdatedTimeInSeconds`. The day it describes is periodStartDate + dayInCycle - 1. Garmin
// sends no clock offset with it: the day is bounded in the user's known offset, else UTC.
// Later versions of a day replace earlier ones (same identity: the day's bounds).
import { MenstruationInterval } from '../../../model/enums.ts';
import type { Menstruation } from '../../../model/menstruation.ts';
import { addDays, isIsoDate } from '../../../model/time.ts';
import {
  dayBoundsOf,
  localizationOf,
  type NormalizeContext,
} from '../../../provider-kit/normalize/normalize.ts';
import { isNumber, textOrNull, wireAt } from './time.ts';
import type { GarminCycle } from './types.ts';

export type GarminMenstruationPayload = { mct: readonly GarminCycle[] };

/** Garmin's phase names [?] -> the unified interval; anything else is UNKNOWN. */
const PHASES: Readonly<Record<string, number>> = {
  MENSTRUAL: MenstruationInterval.PERIOD,
  PERIOD: MenstruationInterval.PERIOD,
  FOLLICULAR: MenstruationInterval.FOLLICULAR,
  FERTILE: MenstruationInterval.FERTILE_WINDOW,
  FERTILE_WINDOW: MenstruationInterval.FERTILE_WINDOW,
  OVULATION: MenstruationInterval.OVULATION,
  LUTEAL: MenstruationInterval.LUTEAL,
  PMS: MenstruationInterval.PMS,
  FIRST_TRIMESTER: MenstruationInterval.FIRST_TRIMESTER,
  SECOND_TRIMESTER: MenstruationInterval.SECOND_TRIMESTER,
  THIRD_TRIMESTER: MenstruationInterval.THIRD_TRIMESTER,
};

const wholeOrNull = (value: unknown): number | null =>
  isNumber(value) && Number.isInteger(value) && value >= 0 ? value : null;

export function normalizeMenstruation(
  payload: GarminMenstruationPayload,
  context: NormalizeContext,
): Menstruation[] {
  const offset = context.userOffsetMinutes ?? 0;
  // One record a day: the most recently updated summary of that day wins.
  const byDay = new Map<string, { updated: number; record: Menstruation }>();
  for (const cycle of payload.mct ?? []) {
    if (!cycle || typeof cycle !== 'object') continue;
    const start = textOrNull(cycle.periodStartDate);
    const dayInCycle = wholeOrNull(cycle.dayInCycle);
    if (!start || !isIsoDate(start) || !dayInCycle) continue;
    const date = addDays(start, dayInCycle - 1);
    const updated = isNumber(cycle.lastUpdatedTimeInSeconds) ? cycle.lastUpdatedTimeInSeconds : 0;
    const fertileStart = wholeOrNull(cycle.fertileWindowStart);
    const fertileLength = wholeOrNull(cycle.lengthOfFertileWindow);
    const phase = textOrNull(cycle.currentPhaseType)?.toUpperCase();
    const record: Menstruation = {
      metadata: { ...dayBoundsOf(date, offset), timestamp_localization: localizationOf(offset) },
      menstruation_data: {
        period_start_date: start,
        day_in_cycle: dayInCycle,
        period_length_days: wholeOrNull(cycle.periodLength),
        current_phase: (phase && PHASES[phase]) ?? MenstruationInterval.UNKNOWN,
        length_of_current_phase_days: wholeOrNull(cycle.lengthOfCurrentPhase),
        days_until_next_phase: wholeOrNull(cycle.daysUntilNextPhase),
        cycle_length_days: wholeOrNull(cycle.cycleLength),
        predicted_cycle_length_days: wholeOrNull(cycle.predictedCycleLength),
        is_predicted_cycle: typeof cycle.isPredictedCycle === 'boolean' ? cycle.isPredictedCycle : null,
        last_updated_time: updated > 0 ? wireAt(updated, offset) : null,
        fertility_window_start: fertileStart ? addDays(start, fertileStart - 1) : null,
        fertility_window_end:
          fertileStart && fertileLength ? addDays(start, fertileStart + fertileLength - 2) : null,
      },
    } as Menstruation;
    const known = byDay.get(date);
    if (!known || known.updated <= updated) byDay.set(date, { updated, record });
  }
  return [...byDay.values()].map((entry) => entry.record);
}

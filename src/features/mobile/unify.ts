// From a user's stored mobile samples to unified records. Pure functions over MobileSample lists:
// the service loads the samples of a local day and stores what comes out.
//
// Duplicate sources (docs/mobile.md#duplicate-sources): an iPhone and an Apple Watch (or two
// Android apps) record the same steps. Per local day and per metric the merge engine chooses
// (source-choice.ts): sources ranked by device kind, then completeness; cumulative metrics
// (steps, distance, energy, floors) from the best source, the time it leaves uncovered from the
// next ones, so no stretch of time counts twice and phone steps still count while the watch was
// off; discrete metrics (heart rate, HRV, SpO2, …) from the best source alone. The chosen source
// is recorded in `device_data` (`name`, `data_provided`), gap-fillers in
// `device_data.other_devices`.
// The parts live in unify/: shared.ts (days, sums, the day frame), daily.ts, body.ts (body,
// nutrition, menstruation), sleep.ts and activity.ts.
import type { Body, Daily, Menstruation, Nutrition } from '../../model/index.ts';
import { formatDateTime } from '../../model/time.ts';
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
import { dayBoundsOf, localizationOf } from '../../provider-kit/normalize/normalize.ts';
import { buildBody, buildMenstruation, buildNutrition } from './unify/body.ts';
import { buildDaily } from './unify/daily.ts';
import { byKind, offsetOfDay } from './unify/shared.ts';

export { buildActivity } from './unify/activity.ts';
export { localDayOf, neighbourDays } from './unify/shared.ts';
export { buildSleeps, SLEEP_KEY_PREFIX, sleepKey } from './unify/sleep.ts';

export type DayRecords = {
  daily: Daily | null;
  body: Body | null;
  nutrition: Nutrition | null;
  menstruation: Menstruation | null;
};

/** The day records (daily, body, nutrition, menstruation) of one local day. */
export function buildDayRecords(day: string, samples: readonly MobileSample[]): DayRecords {
  const onDay = samples.filter((sample) => sample.kind !== 'sleep' && sample.kind !== 'workout');
  const offset = offsetOfDay(onDay);
  const bounds = dayBoundsOf(day, offset);
  const localization = localizationOf(offset);
  const at = (ms: number) => formatDateTime(ms, offset);
  const kinds = byKind(onDay);
  return {
    daily: buildDaily(kinds, onDay, { bounds, localization, at }),
    body: buildBody(kinds, { bounds, localization, at }),
    nutrition: buildNutrition(kinds, { bounds, localization }),
    menstruation: buildMenstruation(kinds, { bounds, localization, at }),
  };
}

// Oura heartrate (+ daily_spo2, personal_info) -> Body, one record per local calendar day.
//
// Cannot map: daily_spo2 `breathing_disturbance_index`. Heart-rate rows carry no zone, so a day
// is written in the user's offset from the context (UTC when unknown). personal_info is undated:
// its weight/height become a measurement on the day of `context.now`, and only when the
// framework says when it fetched it.
import type { Body } from '../../../model/body.ts';
import { formatDateTime, localIsoDate, localMidnightMs, MS_PER_DAY } from '../../../model/time.ts';
import { dayBoundsOf, type NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import { convertOrNull, metersToCentimeters } from '../../../provider-kit/normalize/units.ts';
import { heartRateBetween, indexHeartRate } from './heartrate.ts';
import type { OuraDailySpo2, OuraHeartRateRow, OuraPersonalInfo } from './types.ts';

export type OuraBodyPayload = {
  heartrate: readonly OuraHeartRateRow[];
  daily_spo2?: readonly OuraDailySpo2[];
  personal_info?: OuraPersonalInfo;
};

export function normalizeBody(payload: OuraBodyPayload, context: NormalizeContext): Body[] {
  const offset = context.userOffsetMinutes ?? 0;
  const index = indexHeartRate(payload.heartrate);
  const days = new Set<string>();
  // Rows are sorted: walk day by day rather than formatting a date per row.
  let position = 0;
  while (position < index.instants.length) {
    const day = localIsoDate(index.instants[position] as number, offset);
    days.add(day);
    const nextDayMs = localMidnightMs(day, offset) + MS_PER_DAY;
    while (position < index.instants.length && (index.instants[position] as number) < nextDayMs) position++;
  }
  const spo2 = new Map<string, number>();
  for (const document of payload.daily_spo2 ?? []) {
    const average = document.spo2_percentage?.average;
    if (typeof average === 'number') {
      spo2.set(document.day, average);
      days.add(document.day);
    }
  }
  const info = payload.personal_info;
  const measuredDay =
    info && context.now !== undefined && (info.weight != null || info.height != null)
      ? localIsoDate(context.now, offset)
      : null;
  if (measuredDay) days.add(measuredDay);

  return [...days].sort().map((day): Body => {
    const startMs = localMidnightMs(day, offset);
    const hr = heartRateBetween(index, startMs, startMs + MS_PER_DAY, offset);
    const average = spo2.get(day) ?? null;
    return {
      metadata: { ...dayBoundsOf(day, offset), timestamp_localization: offset === 0 ? 0 : 1 },
      heart_data:
        hr.samples.length > 0
          ? {
              heart_rate_data: {
                summary: { avg_hr_bpm: hr.avg, min_hr_bpm: hr.min, max_hr_bpm: hr.max },
                detailed: { hr_samples: hr.samples },
              },
            }
          : null,
      oxygen_data: average === null ? null : { avg_saturation_percentage: average },
      measurements_data:
        info && day === measuredDay && context.now !== undefined
          ? {
              measurements: [
                {
                  measurement_time: formatDateTime(context.now, offset),
                  weight_kg: info.weight ?? null,
                  height_cm: convertOrNull(info.height, metersToCentimeters),
                },
              ],
            }
          : null,
    };
  });
}

// WHOOP recovery (+ body measurement, and the sleeps/cycles that date and zone it) -> Body.
//
// Recovery is WHOOP's morning reading: resting HR, HRV (RMSSD, ms), SpO2 and absolute skin
// temperature (°C), taken over the sleep it names; its samples are stamped at that sleep's end
// (else at the recovery's `created_at`) and the record is that local day. The body measurement
// is undated: its weight, height and max HR attach to the day of `context.now`, only when the
// framework says when it fetched it. Cannot map: `user_calibrating`, `recovery_score` (Body has
// no score; Daily and Sleep carry it).
import type { Body } from '../../../model/body.ts';
import { OxygenSaturationType } from '../../../model/enums.ts';
import { formatDateTime, localIsoDate } from '../../../model/time.ts';
import { dayBoundsOf, type NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import { metersToCentimeters } from '../../../provider-kit/normalize/units.ts';
import { instant, offsetOf } from './common.ts';
import type { WhoopBodyMeasurement, WhoopCycle, WhoopRecovery, WhoopSleep } from './types.ts';

export type WhoopBodyPayload = {
  recovery: readonly WhoopRecovery[];
  body_measurement?: WhoopBodyMeasurement | null;
  sleep?: readonly WhoopSleep[];
  cycle?: readonly WhoopCycle[];
};

type Reading = { atMs: number; offset: number; recovery: WhoopRecovery };

export function normalizeBody(payload: WhoopBodyPayload, context: NormalizeContext): Body[] {
  // By the id's text: a v1 recovery names its sleep by the long a v1 sleep carries as its id.
  const sleeps = new Map((payload.sleep ?? []).map((sleep) => [String(sleep.id), sleep]));
  const cycles = new Map((payload.cycle ?? []).map((cycle) => [cycle.id, cycle]));
  const readings = new Map<string, Reading[]>();
  const offsets = new Map<string, number>();
  for (const recovery of payload.recovery) {
    if (!recovery.score) continue;
    const sleep = sleeps.get(String(recovery.sleep_id));
    const zone = sleep?.timezone_offset ?? cycles.get(recovery.cycle_id)?.timezone_offset;
    const offset = offsetOf(zone, context);
    const atMs = instant(sleep?.end ?? recovery.created_at);
    const day = localIsoDate(atMs, offset);
    const list = readings.get(day);
    if (list) list.push({ atMs, offset, recovery });
    else readings.set(day, [{ atMs, offset, recovery }]);
    offsets.set(day, offset);
  }
  const measurement = payload.body_measurement ?? null;
  const fallbackOffset = context.userOffsetMinutes ?? 0;
  const measuredDay =
    measurement && context.now !== undefined ? localIsoDate(context.now, fallbackOffset) : null;
  const days = new Set(readings.keys());
  if (measuredDay) days.add(measuredDay);

  return [...days].sort().map((day): Body => {
    const offset = offsets.get(day) ?? fallbackOffset;
    const list = (readings.get(day) ?? []).sort((a, b) => a.atMs - b.atMs);
    const latest = list.at(-1)?.recovery.score ?? null;
    const skin = [];
    const spo2 = [];
    for (const reading of list) {
      const timestamp = formatDateTime(reading.atMs, reading.offset);
      const score = reading.recovery.score;
      if (typeof score?.skin_temp_celsius === 'number')
        skin.push({ timestamp, temperature_celsius: score.skin_temp_celsius });
      if (typeof score?.spo2_percentage === 'number') {
        spo2.push({ timestamp, percentage: score.spo2_percentage, type: OxygenSaturationType.BLOOD_SPO2 });
      }
    }
    const measured = measurement && day === measuredDay && context.now !== undefined ? measurement : null;
    return {
      metadata: { ...dayBoundsOf(day, offset), timestamp_localization: offset === 0 ? 0 : 1 },
      heart_data:
        latest || measured
          ? {
              heart_rate_data: {
                summary: {
                  resting_hr_bpm: latest?.resting_heart_rate ?? null,
                  avg_hrv_rmssd: latest?.hrv_rmssd_milli ?? null,
                  user_max_hr_bpm: measured?.max_heart_rate ?? null,
                },
              },
            }
          : null,
      oxygen_data:
        spo2.length > 0
          ? { avg_saturation_percentage: latest?.spo2_percentage ?? null, saturation_samples: spo2 }
          : null,
      temperature_data: skin.length > 0 ? { skin_temperature_samples: skin } : null,
      measurements_data: measured
        ? {
            measurements: [
              {
                measurement_time: formatDateTime(context.now as number, offset),
                weight_kg: measured.weight_kilogram,
                height_cm: metersToCentimeters(measured.height_meter),
              },
            ],
          }
        : null,
    };
  });
}

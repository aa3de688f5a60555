// Withings getactivity (+ getintradayactivity of the same days) -> Daily, one per `date`.
//
// Cannot map: `brand`/`is_tracker` (source flags), `modified`. Withings' day is the user's
// calendar day in `timezone`; the record runs from local midnight to local midnight in that zone
// (the offset in force at midnight). `elevation` is floors climbed, `calories` active kcal,
// `totalcalories` active plus passive; BMR is the passive part (total - active). soft / moderate
// / intense seconds are the model's low / moderate / vigorous intensity seconds, `active` its
// activity seconds. hr_zone_0..3 are Withings' light / moderate / intense / maximal zones and
// keep their numbers (zones 0-3); Withings publishes no bounds for them. Intraday points are
// per-interval amounts keyed by their start: steps and calories stay per interval, distance
// and floors are accumulated because the model's distance/floor samples are cumulative.
import { heartRate } from '../../../provider-kit/normalize/measures.ts';
import type { Daily } from '../../../model/daily.ts';
import { type CodeOf, HeartRateZone, OxygenSaturationType, UploadType } from '../../../model/enums.ts';
import { formatDateTime, localMidnightMs, MS_PER_DAY } from '../../../model/time.ts';
import { dayBoundsOf, type NormalizeContext, statsOf } from '../../../provider-kit/normalize/normalize.ts';
import { midnightOffset, offsetIn } from './timezone.ts';
import {
  type Pages,
  pagesOf,
  type WithingsActivity,
  type WithingsActivityBody,
  type WithingsIntradayBody,
} from './types.ts';

export type WithingsDailyPayload = {
  activity: Pages<WithingsActivityBody>;
  intraday_activity?: Pages<WithingsIntradayBody>;
};

type ZoneCode = CodeOf<typeof HeartRateZone>;
const zoneNames = ['light', 'moderate', 'intense', 'maximal'] as const;
const zoneCodes: readonly ZoneCode[] = [
  HeartRateZone.ZONE_0,
  HeartRateZone.ZONE_1,
  HeartRateZone.ZONE_2,
  HeartRateZone.ZONE_3,
];

/** Heart-rate zone durations of a day or workout (`hr_zone_0`..`hr_zone_3`, seconds). */
export function withingsZones(source: {
  hr_zone_0?: number | null;
  hr_zone_1?: number | null;
  hr_zone_2?: number | null;
  hr_zone_3?: number | null;
}) {
  const durations = [source.hr_zone_0, source.hr_zone_1, source.hr_zone_2, source.hr_zone_3];
  if (durations.every((duration) => typeof duration !== 'number')) return null;
  return durations.map((duration, index) => ({
    zone: zoneCodes[index] as ZoneCode,
    name: zoneNames[index] as string,
    duration_seconds: typeof duration === 'number' ? duration : null,
  }));
}

type Intraday = {
  steps: { timestamp: string; steps: number }[];
  calories: { timestamp: string; calories: number }[];
  distance: { timestamp: string; distance_meters: number }[];
  floors: { timestamp: string; floors_climbed: number }[];
  hr: { timestamp: string; bpm: number }[];
  spo2: { timestamp: string; percentage: number; type: 0 }[];
};

function intradayBetween(
  points: readonly [number, WithingsIntradayBody['series'][string]][],
  startMs: number,
  zone: string | null,
  fallback: number,
): Intraday {
  const out: Intraday = { steps: [], calories: [], distance: [], floors: [], hr: [], spo2: [] };
  let distance = 0;
  let floors = 0;
  const endMs = startMs + MS_PER_DAY;
  // Points are sorted: binary-search the day's first one instead of scanning every day.
  let low = 0;
  let high = points.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((points[middle] as [number, unknown])[0] < startMs) low = middle + 1;
    else high = middle;
  }
  for (let index = low; index < points.length; index++) {
    const [atMs, point] = points[index] as [number, WithingsIntradayBody['series'][string]];
    if (atMs >= endMs) break;
    const timestamp = formatDateTime(atMs, offsetIn(zone, atMs, fallback));
    if (typeof point.steps === 'number') out.steps.push({ timestamp, steps: point.steps });
    if (typeof point.calories === 'number') out.calories.push({ timestamp, calories: point.calories });
    if (typeof point.distance === 'number') {
      distance += point.distance;
      out.distance.push({ timestamp, distance_meters: distance });
    }
    if (typeof point.elevation === 'number') {
      floors += point.elevation;
      out.floors.push({ timestamp, floors_climbed: floors });
    }
    const bpm = heartRate(point.heart_rate);
    if (bpm !== null) out.hr.push({ timestamp, bpm });
    if (typeof point.spo2_auto === 'number') {
      out.spo2.push({ timestamp, percentage: point.spo2_auto, type: OxygenSaturationType.BLOOD_SPO2 });
    }
  }
  return out;
}

function toDaily(activity: WithingsActivity, intraday: Intraday | null, offset: number): Daily {
  const total = activity.totalcalories ?? null;
  const active = activity.calories ?? null;
  const hrSamples = intraday?.hr ?? [];
  const sampled = statsOf(hrSamples.map((sample) => sample.bpm));
  const spo2 = intraday?.spo2 ?? [];
  return {
    metadata: {
      ...dayBoundsOf(activity.date, offset),
      upload_type: UploadType.AUTOMATIC,
      timestamp_localization: offset === 0 ? 0 : 1,
    },
    active_durations_data: {
      activity_seconds: activity.active ?? null,
      low_intensity_seconds: activity.soft ?? null,
      moderate_intensity_seconds: activity.moderate ?? null,
      vigorous_intensity_seconds: activity.intense ?? null,
    },
    calories_data: {
      total_burned_calories: total,
      net_activity_calories: active,
      BMR_calories: total !== null && active !== null ? total - active : null,
      calorie_samples: intraday?.calories ?? [],
    },
    distance_data: {
      steps: activity.steps ?? null,
      distance_meters: activity.distance ?? null,
      floors_climbed: activity.elevation ?? null,
      detailed: {
        step_samples: intraday?.steps ?? [],
        distance_samples: intraday?.distance ?? [],
        floors_climbed_samples: intraday?.floors ?? [],
      },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: heartRate(activity.hr_average) ?? sampled.avg,
        min_hr_bpm: heartRate(activity.hr_min) ?? sampled.min,
        max_hr_bpm: heartRate(activity.hr_max) ?? sampled.max,
        hr_zone_data: withingsZones(activity),
      },
      detailed: { hr_samples: hrSamples },
    },
    oxygen_data: spo2.length
      ? {
          avg_saturation_percentage: statsOf(spo2.map((sample) => sample.percentage)).avg,
          saturation_samples: spo2,
        }
      : null,
    device_data: activity.model ? { name: activity.model, manufacturer: 'Withings' } : null,
  };
}

export function normalizeDaily(payload: WithingsDailyPayload, context: NormalizeContext): Daily[] {
  const fallback = context.userOffsetMinutes ?? 0;
  const points: [number, WithingsIntradayBody['series'][string]][] = [];
  for (const body of pagesOf(payload.intraday_activity)) {
    for (const key in body.series)
      points.push([Number(key) * 1000, body.series[key] as WithingsIntradayBody['series'][string]]);
  }
  points.sort((left, right) => left[0] - right[0]);
  const activities: WithingsActivity[] = [];
  for (const body of pagesOf(payload.activity)) activities.push(...body.activities);
  return activities
    .sort((left, right) => (left.date < right.date ? -1 : 1))
    .map((activity) => {
      const zone = activity.timezone ?? null;
      const offset = midnightOffset(zone, activity.date, fallback);
      const intraday = points.length
        ? intradayBetween(points, localMidnightMs(activity.date, offset), zone, fallback)
        : null;
      return toDaily(activity, intraday, offset);
    });
}

// One activity record per workout sample.
import type { Activity } from '../../../model/index.ts';
import { UploadType } from '../../../model/enums.ts';
import { formatDateTime } from '../../../model/time.ts';
import type { MobileSample } from '../../../provider-kit/mobile/samples.ts';
import { localizationOf } from '../../../provider-kit/normalize/normalize.ts';
import { chooseCumulative, chooseDiscrete } from '../source-choice.ts';
import { round, stats, sum } from './shared.ts';

/**
 * One activity per workout, with the heart-rate and distance samples recorded during it (from
 * the best source, as for the day) and its route.
 */
export function buildActivity(workout: MobileSample, around: readonly MobileSample[]): Activity {
  const details = workout.workout!;
  const offset = workout.offsetMinutes;
  const at = (ms: number) => formatDateTime(ms, offset);
  const inside = (sample: MobileSample) =>
    sample.startMs >= workout.startMs && sample.startMs <= workout.endMs;
  const hr = chooseDiscrete(
    around.filter((s) => s.kind === 'heart_rate' && inside(s)),
    'heart_rate',
  ).samples;
  const distance = chooseCumulative(around.filter((s) => s.kind === 'distance' && inside(s))).samples;
  const hrStats = stats(hr.map((s) => s.value ?? 0));
  let cumulative = 0;
  const route = details.route;
  const first = route[0];
  const last = route.at(-1);
  return {
    metadata: {
      summary_id: workout.id,
      start_time: at(workout.startMs),
      end_time: at(workout.endMs),
      type: details.type as never,
      upload_type: UploadType.AUTOMATIC,
      name: details.name,
      timestamp_localization: localizationOf(offset),
    },
    active_durations_data: { activity_seconds: details.durationSeconds },
    calories_data: { net_activity_calories: round(details.energyKcal) },
    distance_data: {
      summary: {
        distance_meters: round(details.distanceMeters ?? (distance.length > 0 ? sum(distance) : null)),
      },
      detailed: {
        distance_samples: distance.map((s) => {
          cumulative += s.value ?? 0;
          return { timestamp: at(s.endMs), distance_meters: round(cumulative) };
        }),
      },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: round(details.avgHr ?? hrStats.avg),
        min_hr_bpm: details.minHr ?? hrStats.min,
        max_hr_bpm: details.maxHr ?? hrStats.max,
      },
      detailed: { hr_samples: hr.map((s) => ({ timestamp: at(s.startMs), bpm: s.value })) },
    },
    position_data:
      first && last
        ? {
            start_pos_lat_lng_deg: [first.lat, first.lng],
            end_pos_lat_lng_deg: [last.lat, last.lng],
            position_samples: route.map((point) => ({
              timestamp: at(point.t),
              coords_lat_lng_deg: [point.lat, point.lng],
            })),
          }
        : null,
    device_data: { name: workout.source.name, hardware_version: workout.source.model },
  } as Activity;
}

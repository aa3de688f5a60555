// Huawei activity records (GET activityRecords) -> Activity. Times are milliseconds; the record's
// `timeZone` (`+0800`) is the offset it was recorded in, so a run at 00:30 local time in +08:00
// keeps its local day though it started the previous UTC day. Summary statistics
// (activitySummary.dataSummary, HMSCore-References activityrecords_update): steps.total `steps`,
// distance.total `distance` (m), calories.burnt.total `calories_total` (kcal),
// exercise_heart_rate.statistics `avg`/`max`. The integer `activityType` is Huawei's own
// numbering, which its public REST pages do not list: every activity is OTHER with the number
// kept in its name when it has none (MAPPING.md).
import type { Activity } from '../../../model/activity.ts';
import { ActivityType } from '../../../model/activity-type.ts';
import { UploadType } from '../../../model/enums.ts';
import { formatDateTime } from '../../../model/time.ts';
import { heartRate, positiveOrNull } from '../../../provider-kit/normalize/measures.ts';
import { localizationOf, type NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import type { HuaweiActivityRecord } from './types.ts';
import { fieldOf, zoneOffsetMinutes } from './values.ts';

export function normalizeActivity(record: HuaweiActivityRecord, context: NormalizeContext): Activity {
  const start = record?.startTime;
  const end = record?.endTime;
  if (typeof record?.id !== 'string' || typeof start !== 'number' || typeof end !== 'number' || end < start)
    throw new RangeError('an activity record without id or a valid span');
  const offset = zoneOffsetMinutes(record.timeZone) ?? context.userOffsetMinutes ?? 0;
  const summary = record.activitySummary?.dataSummary ?? [];
  const of = (type: string, field: string) =>
    fieldOf(summary.find((point) => point?.dataTypeName === type)?.value, field);
  const active = positiveOrNull(record.activeTime);
  const elapsed = (end - start) / 1000;
  const calories = positiveOrNull(of('com.huawei.continuous.calories.burnt.total', 'calories_total'));
  return {
    metadata: {
      summary_id: record.id,
      start_time: formatDateTime(start, offset),
      end_time: formatDateTime(end, offset),
      type: ActivityType.OTHER,
      upload_type: UploadType.AUTOMATIC,
      name:
        record.name ??
        (typeof record.activityType === 'number' ? `Huawei activity type ${record.activityType}` : null),
      timestamp_localization: localizationOf(offset),
    },
    active_durations_data: {
      activity_seconds: active === null ? null : active / 1000,
      rest_seconds: active === null || active / 1000 > elapsed ? null : elapsed - active / 1000,
    },
    calories_data: { total_burned_calories: calories },
    distance_data: {
      summary: {
        steps: positiveOrNull(of('com.huawei.continuous.steps.total', 'steps')),
        distance_meters: positiveOrNull(of('com.huawei.continuous.distance.total', 'distance')),
      },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: heartRate(of('com.huawei.continuous.exercise_heart_rate.statistics', 'avg')),
        max_hr_bpm: heartRate(of('com.huawei.continuous.exercise_heart_rate.statistics', 'max')),
      },
    },
  };
}

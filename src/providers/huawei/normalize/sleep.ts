// Huawei sleep health records (GET healthRecords?dataType=com.huawei.health.record.sleep) ->
// Sleep, keyed by `healthRecordId` (else `id`). Fields (HMSCore-Guides "sleep-record" scene [C]): `fall_asleep_time` / `wakeup_time`
// (ms), `all_sleep_time`, `light_sleep_time`, `deep_sleep_time`, `dream_time` (REM),
// `awake_time` (minutes), `wakeup_count`, `sleep_score`; the record's own times are
// nanoseconds. Without `fall_asleep_time`/`wakeup_time` the record's span is used. The offset is
// the record's `timeZone` when it has one, else the user's, else UTC.
import { SleepUploadType } from '../../../model/enums.ts';
import type { Sleep } from '../../../model/sleep.ts';
import { formatDateTime } from '../../../model/time.ts';
import { positiveOrNull } from '../../../provider-kit/normalize/measures.ts';
import { localizationOf, type NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import type { HuaweiHealthRecord } from './types.ts';
import { fieldOf, nanosToMs, zoneOffsetMinutes } from './values.ts';

const minutes = (value: number | null) => {
  const positive = positiveOrNull(value);
  return positive === null ? null : positive * 60;
};

export function normalizeSleep(record: HuaweiHealthRecord, context: NormalizeContext): Sleep {
  const values = record?.value;
  const start = positiveOrNull(fieldOf(values, 'fall_asleep_time')) ?? nanosToMs(record?.startTime);
  const end = positiveOrNull(fieldOf(values, 'wakeup_time')) ?? nanosToMs(record?.endTime);
  // Huawei's SDKs name the key `healthRecordId`; `id` is read when it is absent (types.ts).
  const id = record?.healthRecordId ?? record?.id;
  if (typeof id !== 'string' || id === '' || start === null || end === null || end <= start)
    throw new RangeError('a sleep record without healthRecordId or a valid span');
  const offset = zoneOffsetMinutes(record.timeZone) ?? context.userOffsetMinutes ?? 0;
  const wakeups = fieldOf(values, 'wakeup_count');
  const score = positiveOrNull(fieldOf(values, 'sleep_score'));
  return {
    metadata: {
      summary_id: id,
      start_time: formatDateTime(start, offset),
      end_time: formatDateTime(end, offset),
      upload_type: SleepUploadType.AUTOMATIC,
      is_nap: false,
      timestamp_localization: localizationOf(offset),
    },
    sleep_durations_data: {
      asleep: {
        duration_asleep_state_seconds: minutes(fieldOf(values, 'all_sleep_time')),
        duration_deep_sleep_state_seconds: minutes(fieldOf(values, 'deep_sleep_time')),
        duration_light_sleep_state_seconds: minutes(fieldOf(values, 'light_sleep_time')),
        duration_REM_sleep_state_seconds: minutes(fieldOf(values, 'dream_time')),
      },
      awake: {
        duration_awake_state_seconds: minutes(fieldOf(values, 'awake_time')),
        num_wakeup_events: wakeups !== null && wakeups >= 0 ? wakeups : null,
      },
    },
    scores: { sleep: score },
  };
}

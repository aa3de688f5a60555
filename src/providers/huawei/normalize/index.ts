// Huawei normalizer table: provider data kind -> unified type, normalize().
import { normalizer } from '../../../provider-kit/normalize/normalize.ts';
import { normalizeActivity } from './activity.ts';
import { type BodyPayload, normalizeBody } from './body.ts';
import { type DailyPayload, normalizeDaily } from './daily.ts';
import { normalizeSleep } from './sleep.ts';
import type { HuaweiActivityRecord, HuaweiHealthRecord } from './types.ts';

export type * from './types.ts';
export type { BodyPayload } from './body.ts';
export type { DailyPayload } from './daily.ts';
export { BODY_TYPES } from './body.ts';
export { DAILY_TYPES } from './daily.ts';

export const huaweiNormalizers = {
  activityRecord: normalizer({
    unifiedType: 'activity',
    companions: [],
    normalize: (record: HuaweiActivityRecord, context) => [normalizeActivity(record, context)],
  }),
  dailyStatistics: normalizer({
    unifiedType: 'daily',
    companions: [],
    normalize: (payload: DailyPayload) => normalizeDaily(payload),
  }),
  bodySamples: normalizer({
    unifiedType: 'body',
    companions: [],
    normalize: (payload: BodyPayload) => normalizeBody(payload),
  }),
  sleepRecord: normalizer({
    unifiedType: 'sleep',
    companions: [],
    normalize: (record: HuaweiHealthRecord, context) => [normalizeSleep(record, context)],
  }),
} as const;

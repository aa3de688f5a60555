// Huawei Health Kit REST shapes (HMSCore-References: SamplePoint, HealthRecord, ActivityRecord).
// Times: SamplePoint and HealthRecord times are nanoseconds, ActivityRecord times milliseconds,
// polymerize group times milliseconds. A value is `{fieldName, integerValue|floatValue|longValue}`.

export type HuaweiValue = {
  fieldName?: string;
  integerValue?: number;
  floatValue?: number;
  longValue?: number;
  stringValue?: string;
};

export type HuaweiSamplePoint = {
  startTime?: number | string;
  endTime?: number | string;
  dataTypeName?: string;
  value?: HuaweiValue[];
};

export type HuaweiGroup = {
  startTime?: number;
  endTime?: number;
  sampleSet?: { dataCollectorId?: string; samplePoints?: HuaweiSamplePoint[] }[];
};

export type HuaweiPolymerizeAnswer = { group?: HuaweiGroup[] };

export type HuaweiHealthRecord = {
  /**
   * The record's id. Huawei's SDKs name it `healthRecordId` (Android HealthRecord
   * getHealthRecordId(), the Flutter plugin's HealthRecord.fromMap); the REST page does not
   * settle the key, so `id` is read too (docs/providers.md#huawei-health-kit).
   */
  healthRecordId?: string;
  id?: string;
  startTime?: number | string;
  endTime?: number | string;
  dataTypeName?: string;
  timeZone?: string;
  value?: HuaweiValue[];
};

export type HuaweiActivityRecord = {
  id?: string;
  name?: string;
  description?: string;
  startTime?: number;
  endTime?: number;
  activeTime?: number;
  activityType?: number;
  timeZone?: string;
  activitySummary?: { dataSummary?: HuaweiSamplePoint[] } | null;
};

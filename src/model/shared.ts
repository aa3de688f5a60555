// Sub-objects shared by several records (reference B, "Shared sub-objects"), plus the
// metadata fields every record type repeats.
import Type from 'typebox';
import { DeviceDataTypeSchema, TimestampLocalizationSchema } from './enums.ts';
import {
  ActivityLevelSample,
  CalorieSample,
  DistanceSample,
  ElevationSample,
  FloorsClimbedSample,
  HeartRateDataSample,
  HeartRateVariabilityDataSampleRmssd,
  HeartRateVariabilityDataSampleSdnn,
  HeartRateZoneData,
  MetSample,
  OxygenSaturationSample,
  StepSample,
  Vo2MaxSample,
} from './samples.ts';
import {
  DateTimeText,
  Nullable,
  NullableArray,
  NullableDateTime,
  NullableNumber,
  NullableString,
} from './schema-helpers.ts';

const deviceFields = {
  activation_timestamp: NullableDateTime(),
  data_provided: NullableArray(DeviceDataTypeSchema),
  hardware_version: NullableString(),
  last_upload_date: NullableDateTime(),
  manufacturer: NullableString(),
  name: NullableString(),
  serial_number: NullableString(),
  software_version: NullableString(),
};

export const OtherDeviceData = Type.Object(deviceFields, { title: 'OtherDeviceData' });

export const DeviceData = Type.Object(
  { ...deviceFields, other_devices: NullableArray(OtherDeviceData), sensor_state: NullableString() },
  { title: 'DeviceData' },
);

export const HeartRateDataSummary = Type.Object(
  {
    avg_hr_bpm: NullableNumber(),
    avg_hrv_rmssd: NullableNumber(),
    avg_hrv_sdnn: NullableNumber(),
    hr_zone_data: NullableArray(HeartRateZoneData),
    max_hr_bpm: NullableNumber(),
    min_hr_bpm: NullableNumber(),
    resting_hr_bpm: NullableNumber(),
    user_max_hr_bpm: NullableNumber(),
  },
  { title: 'HeartRateDataSummary' },
);

export const HeartRateDataDetailed = Type.Object(
  {
    hr_samples: NullableArray(HeartRateDataSample),
    hrv_samples_rmssd: NullableArray(HeartRateVariabilityDataSampleRmssd),
    hrv_samples_sdnn: NullableArray(HeartRateVariabilityDataSampleSdnn),
  },
  { title: 'HeartRateDataDetailed' },
);

export const HeartRateData = Type.Object(
  { summary: Nullable(HeartRateDataSummary), detailed: Nullable(HeartRateDataDetailed) },
  { title: 'HeartRateData' },
);

export const ActiveDurationsData = Type.Object(
  {
    activity_levels_samples: NullableArray(ActivityLevelSample),
    activity_seconds: NullableNumber(),
    inactivity_seconds: NullableNumber(),
    low_intensity_seconds: NullableNumber(),
    moderate_intensity_seconds: NullableNumber(),
    vigorous_intensity_seconds: NullableNumber(),
    num_continuous_inactive_periods: NullableNumber(),
    rest_seconds: NullableNumber(),
    standing_hours_count: NullableNumber(),
    standing_seconds: NullableNumber(),
  },
  { title: 'ActiveDurationsData' },
);

export const CaloriesData = Type.Object(
  {
    BMR_calories: NullableNumber(),
    calorie_samples: NullableArray(CalorieSample),
    net_activity_calories: NullableNumber(),
    net_intake_calories: NullableNumber(),
    total_burned_calories: NullableNumber(),
  },
  { title: 'CaloriesData' },
);

/** Key `MET_data` in records. */
export const MetData = Type.Object(
  {
    MET_samples: NullableArray(MetSample),
    avg_level: NullableNumber(),
    num_high_intensity_minutes: NullableNumber(),
    num_inactive_minutes: NullableNumber(),
    num_low_intensity_minutes: NullableNumber(),
    num_moderate_intensity_minutes: NullableNumber(),
  },
  { title: 'METData' },
);

export const OxygenData = Type.Object(
  {
    avg_saturation_percentage: NullableNumber(),
    saturation_samples: NullableArray(OxygenSaturationSample),
    vo2_samples: NullableArray(Vo2MaxSample),
    vo2max_ml_per_min_per_kg: NullableNumber(),
  },
  { title: 'OxygenData' },
);

export const ElevationData = Type.Object(
  {
    avg_meters: NullableNumber(),
    gain_actual_meters: NullableNumber(),
    gain_planned_meters: NullableNumber(),
    loss_actual_meters: NullableNumber(),
    max_meters: NullableNumber(),
    min_meters: NullableNumber(),
  },
  { title: 'ElevationData' },
);

export const SwimmingData = Type.Object(
  { num_laps: NullableNumber(), num_strokes: NullableNumber(), pool_length_meters: NullableNumber() },
  { title: 'SwimmingData' },
);

export const DistanceDataDetailed = Type.Object(
  {
    distance_samples: NullableArray(DistanceSample),
    elevation_samples: NullableArray(ElevationSample),
    floors_climbed_samples: NullableArray(FloorsClimbedSample),
    step_samples: NullableArray(StepSample),
  },
  { title: 'DistanceDataDetailed' },
);

export const StrainData = Type.Object({ strain_level: NullableNumber() }, { title: 'StrainData' });

/**
 * Score contributors: a map of contributor name -> score (the current schema's `RecordFloat`).
 * The SDK's `[{contributor_name, contributor_score}]` is converted on the way in (legacy-shapes.ts).
 */
export const ContributorMap = () => Nullable(Type.Record(Type.String(), Type.Number()));

export const timestampLocalization = Nullable(TimestampLocalizationSchema);

/** `start_time`/`end_time` of a day record: local midnight to the next local midnight. */
export const dayBounds = {
  start_time: DateTimeText('local midnight starting the day'),
  end_time: DateTimeText('local midnight ending the day (24 h later)'),
};

// Body: one day of body measurements (docs/wire-contract.md#data-model). Identity: start_time + end_time.
import Type, { type Static } from 'typebox';
import {
  AFibClassificationSample,
  BloodPressureSample,
  DailyPatternSample,
  EcgReading,
  GlucoseDataSample,
  HydrationLevelSample,
  HydrationMeasurementSample,
  KetoneSample,
  PulseVelocitySample,
  RrIntervalSample,
  TemperatureSample,
} from './samples.ts';
import {
  Nullable,
  NullableArray,
  NullableInteger,
  NullableNumber,
  NullableString,
} from './schema-helpers.ts';
import { DeviceData, dayBounds, HeartRateData, OxygenData, timestampLocalization } from './shared.ts';

export const BodyMetadata = Type.Object(
  { ...dayBounds, timestamp_localization: timestampLocalization },
  {
    title: 'BodyMetadata',
  },
);

export const MeasurementDataSample = Type.Object(
  {
    measurement_time: NullableString(),
    BMI: NullableNumber(),
    BMR: NullableNumber(),
    RMR: NullableNumber(),
    skin_fold_mm: NullableNumber(),
    bodyfat_percentage: NullableNumber(),
    weight_kg: NullableNumber(),
    height_cm: NullableNumber(),
    bone_mass_g: NullableNumber(),
    muscle_mass_g: NullableNumber(),
    lean_mass_g: NullableNumber(),
    water_percentage: NullableNumber(),
    insulin_units: NullableNumber(),
    /** Whole years (the SDK's string form is converted on the way in: legacy-shapes.ts). */
    estimated_fitness_age: NullableInteger(),
    insulin_type: NullableString(),
    urine_color: NullableString(),
    user_notes: NullableString(),
    visceral_fat_level: NullableNumber(),
    visceral_fat_category: NullableString(),
  },
  { title: 'MeasurementDataSample' },
);

/** Day averages the newer schema adds next to `measurements`. */
const measurementDayAverages = {
  day_avg_bmi: NullableNumber(),
  day_avg_bmr: NullableNumber(),
  day_avg_rmr: NullableNumber(),
  day_avg_estimated_fitness_age: NullableNumber(),
  day_avg_skin_fold_mm: NullableNumber(),
  day_avg_bodyfat_percentage: NullableNumber(),
  day_avg_weight_kg: NullableNumber(),
  day_avg_height_cm: NullableNumber(),
  day_avg_bone_mass_g: NullableNumber(),
  day_avg_muscle_mass_g: NullableNumber(),
  day_avg_lean_mass_g: NullableNumber(),
  day_avg_water_percentage: NullableNumber(),
  day_avg_insulin_units: NullableNumber(),
  day_avg_visceral_fat_level: NullableNumber(),
};

export const GlucoseData = Type.Object(
  {
    blood_glucose_samples: NullableArray(GlucoseDataSample),
    detailed_blood_glucose_samples: NullableArray(GlucoseDataSample),
    day_avg_blood_glucose_mg_per_dL: NullableNumber(),
    gmi: NullableNumber({ description: 'glucose management indicator, %' }),
    time_in_range: NullableNumber({ description: 'percent of readings within 70-180 mg/dL' }),
    sensor_usage: NullableNumber({ description: 'number of sensor readings in the day' }),
    daily_patterns: NullableArray(DailyPatternSample),
  },
  { title: 'GlucoseData' },
);

export const Body = Type.Object(
  {
    metadata: BodyMetadata,
    blood_pressure_data: Nullable(
      Type.Object(
        {
          blood_pressure_samples: NullableArray(BloodPressureSample),
          day_avg_systolic_bp: NullableNumber(),
          day_avg_diastolic_bp: NullableNumber(),
        },
        { title: 'BloodPressureData' },
      ),
    ),
    heart_data: Nullable(
      Type.Object(
        {
          heart_rate_data: Nullable(HeartRateData),
          afib_classification_samples: NullableArray(AFibClassificationSample),
          ecg_signal: NullableArray(EcgReading),
          pulse_wave_velocity_samples: NullableArray(PulseVelocitySample),
          rr_interval_samples: NullableArray(RrIntervalSample),
        },
        { title: 'HeartData' },
      ),
    ),
    hydration_data: Nullable(
      Type.Object(
        {
          day_total_water_consumption_ml: NullableNumber(),
          hydration_amount_samples: NullableArray(HydrationMeasurementSample),
          hydration_level_samples: NullableArray(HydrationLevelSample),
          day_avg_hydration_kg: NullableNumber(),
        },
        { title: 'HydrationData' },
      ),
    ),
    ketone_data: Nullable(
      Type.Object({ ketone_samples: NullableArray(KetoneSample) }, { title: 'KetoneData' }),
    ),
    measurements_data: Nullable(
      Type.Object(
        { measurements: NullableArray(MeasurementDataSample), ...measurementDayAverages },
        { title: 'MeasurementsData' },
      ),
    ),
    oxygen_data: Nullable(OxygenData),
    temperature_data: Nullable(
      Type.Object(
        {
          ambient_temperature_samples: NullableArray(TemperatureSample),
          body_temperature_samples: NullableArray(TemperatureSample),
          skin_temperature_samples: NullableArray(TemperatureSample),
        },
        { title: 'TemperatureData' },
      ),
    ),
    glucose_data: Nullable(GlucoseData),
    device_data: Nullable(DeviceData),
  },
  {
    $id: 'Body',
    title: 'Body',
    description: 'One day of body measurements. Identity: start_time + end_time.',
  },
);

export type Body = Static<typeof Body>;

// Enumerations of the unified model (docs/wire-contract.md#data-model). Numeric codes are `const` objects
// (name -> code, in code-tables.ts, re-exported here) plus a schema listing the allowed codes;
// string enums are readonly tuples. ActivityType lives in activity-type.ts because of its length.
import { codeSchema, stringSchema } from './schema-helpers.ts';
import {
  UploadType,
  SleepUploadType,
  SleepLevel,
  ActivityLevel,
  HeartRateZone,
  HeartRateContext,
  AFibFlag,
  GlucoseFlag,
  TrendArrow,
  KetoneSampleType,
  OxygenSaturationType,
  RecoveryLevel,
  StressLevel,
  MenstruationFlow,
  MealType,
  NutritionUnits,
  TimestampLocalization,
  MenstruationInterval,
} from './code-tables.ts';

export * from './code-tables.ts';

export const UploadTypeSchema = codeSchema(UploadType, 'UploadType');
export const SleepUploadTypeSchema = codeSchema(SleepUploadType, 'SleepUploadType');
export const SleepLevelSchema = codeSchema(SleepLevel, 'SleepLevel');
export const ActivityLevelSchema = codeSchema(ActivityLevel, 'ActivityLevel');
export const HeartRateZoneSchema = codeSchema(HeartRateZone, 'HeartRateZone');
export const HeartRateContextSchema = codeSchema(HeartRateContext, 'HeartRateContext');
export const AFibFlagSchema = codeSchema(AFibFlag, 'AFibFlag');
export const GlucoseFlagSchema = codeSchema(GlucoseFlag, 'GlucoseFlag');
export const TrendArrowSchema = codeSchema(TrendArrow, 'TrendArrow');
export const KetoneSampleTypeSchema = codeSchema(KetoneSampleType, 'KetoneSampleType');
export const OxygenSaturationTypeSchema = codeSchema(OxygenSaturationType, 'OxygenSaturationType');
export const RecoveryLevelSchema = codeSchema(RecoveryLevel, 'RecoveryLevel');
export const StressLevelSchema = codeSchema(StressLevel, 'StressLevel');
export const MenstruationFlowSchema = codeSchema(MenstruationFlow, 'MenstruationFlow');
export const MealTypeSchema = codeSchema(MealType, 'MealType');
export const NutritionUnitsSchema = codeSchema(NutritionUnits, 'NutritionUnits');
export const TimestampLocalizationSchema = codeSchema(TimestampLocalization, 'TimestampLocalization');
export const MenstruationIntervalSchema = codeSchema(MenstruationInterval, 'MenstruationInterval');

/** Lap stroke type (strings, lower case). */
export const strokeTypes = ['other', 'freestyle', 'backstroke', 'breaststroke', 'butterfly'] as const;
export const StrokeTypeSchema = stringSchema(strokeTypes, 'StrokeType');

export const deviceDataTypes = [
  'STEPS',
  'ACTIVE_MINUTES',
  'BMR',
  'CALORIES',
  'DISTANCE',
  'HEART_RATE',
  'OXYGEN_SATURATION',
  'SLEEP_TYPE',
  'SPEED',
  'CADENCE',
] as const;
export const DeviceDataTypeSchema = stringSchema(deviceDataTypes, 'DeviceDataType');

/** The SDK's string menstrual phase. */
export const menstrualPhases = [
  'menstrual',
  'follicular',
  'ovulation',
  'luteal',
  'pms',
  'fertile',
  'first_trimester',
  'second_trimester',
  'third_trimester',
  'unknown',
] as const;
export type MenstrualPhase = (typeof menstrualPhases)[number];
export const MenstrualPhaseSchema = stringSchema(menstrualPhases, 'MenstrualPhase');

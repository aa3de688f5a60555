// Which HealthKit quantity and category types Tributary reads, as which sample kind, in which
// unit; and the category values of sleep and menstrual flow.
import { MenstruationFlow, SleepLevel } from '../../model/code-tables.ts';
import type { MobileKind } from '../../provider-kit/mobile/samples.ts';
import {
  celsius,
  COUNT,
  type Conversion,
  convert,
  ENERGY_KCAL,
  HEIGHT_CM,
  LENGTH_M,
  MASS_G,
  MASS_KG,
  MASS_MG,
  milligramsPerDeciliter,
  MS,
  PER_MINUTE,
  PERCENT,
  PRESSURE,
  VO2,
  VOLUME_ML,
} from './units.ts';

export type QuantityRule = {
  kind: MobileKind;
  to(value: number, unit: string | null, type: string): number;
  part?: string;
};
const via = (kind: MobileKind, table: Conversion): QuantityRule => ({
  kind,
  to: (value, unit, type) => convert(value, unit, table, type),
});
const nutrient = (part: string, table: Conversion): QuantityRule => ({
  kind: 'nutrition',
  part,
  to: (value, unit, type) => convert(value, unit, table, type),
});

export const Q = 'HKQuantityTypeIdentifier';
export const QUANTITIES: Record<string, QuantityRule> = {
  [`${Q}StepCount`]: via('steps', COUNT),
  [`${Q}DistanceWalkingRunning`]: via('distance', LENGTH_M),
  [`${Q}DistanceCycling`]: via('distance', LENGTH_M),
  [`${Q}DistanceSwimming`]: via('distance', LENGTH_M),
  [`${Q}DistanceWheelchair`]: via('distance', LENGTH_M),
  [`${Q}ActiveEnergyBurned`]: via('active_energy', ENERGY_KCAL),
  [`${Q}BasalEnergyBurned`]: via('basal_energy', ENERGY_KCAL),
  [`${Q}FlightsClimbed`]: via('floors', COUNT),
  [`${Q}HeartRate`]: via('heart_rate', PER_MINUTE),
  [`${Q}RestingHeartRate`]: via('resting_heart_rate', PER_MINUTE),
  [`${Q}HeartRateVariabilitySDNN`]: via('hrv_sdnn', MS),
  [`${Q}OxygenSaturation`]: via('oxygen_saturation', PERCENT),
  [`${Q}RespiratoryRate`]: via('respiratory_rate', PER_MINUTE),
  [`${Q}VO2Max`]: via('vo2max', VO2),
  [`${Q}BodyMass`]: via('weight', MASS_KG),
  [`${Q}LeanBodyMass`]: via('lean_mass', MASS_KG),
  [`${Q}BodyFatPercentage`]: via('body_fat', PERCENT),
  [`${Q}Height`]: via('height', HEIGHT_CM),
  [`${Q}BodyMassIndex`]: via('bmi', COUNT),
  [`${Q}BloodPressureSystolic`]: via('bp_systolic', PRESSURE),
  [`${Q}BloodPressureDiastolic`]: via('bp_diastolic', PRESSURE),
  [`${Q}BloodGlucose`]: { kind: 'glucose', to: (value, unit) => milligramsPerDeciliter(value, unit) },
  [`${Q}BodyTemperature`]: { kind: 'body_temperature', to: (value, unit) => celsius(value, unit) },
  [`${Q}DietaryWater`]: via('water', VOLUME_ML),
  [`${Q}DietaryEnergyConsumed`]: nutrient('calories', ENERGY_KCAL),
  [`${Q}DietaryProtein`]: nutrient('protein_g', MASS_G),
  [`${Q}DietaryCarbohydrates`]: nutrient('carbohydrates_g', MASS_G),
  [`${Q}DietaryFatTotal`]: nutrient('fat_g', MASS_G),
  [`${Q}DietaryFatSaturated`]: nutrient('saturated_fat_g', MASS_G),
  [`${Q}DietarySugar`]: nutrient('sugar_g', MASS_G),
  [`${Q}DietaryFiber`]: nutrient('fiber_g', MASS_G),
  [`${Q}DietarySodium`]: nutrient('sodium_mg', MASS_MG),
  [`${Q}DietaryCholesterol`]: nutrient('cholesterol_mg', MASS_MG),
  [`${Q}DietaryCaffeine`]: nutrient('caffeine_mg', MASS_MG),
};

const C = 'HKCategoryValue';
export const SLEEP_VALUES: Record<string, number> = {
  [`${C}SleepAnalysisInBed`]: SleepLevel.UNKNOWN,
  [`${C}SleepAnalysisAsleep`]: SleepLevel.SLEEPING,
  [`${C}SleepAnalysisAsleepUnspecified`]: SleepLevel.SLEEPING,
  [`${C}SleepAnalysisAwake`]: SleepLevel.AWAKE,
  [`${C}SleepAnalysisAsleepCore`]: SleepLevel.LIGHT,
  [`${C}SleepAnalysisAsleepDeep`]: SleepLevel.DEEP,
  [`${C}SleepAnalysisAsleepREM`]: SleepLevel.REM,
  '0': SleepLevel.UNKNOWN,
  '1': SleepLevel.SLEEPING,
  '2': SleepLevel.AWAKE,
  '3': SleepLevel.LIGHT,
  '4': SleepLevel.DEEP,
  '5': SleepLevel.REM,
};
export const FLOW_VALUES: Record<string, number> = {
  [`${C}MenstrualFlowUnspecified`]: MenstruationFlow.HAD,
  [`${C}MenstrualFlowLight`]: MenstruationFlow.LIGHT,
  [`${C}MenstrualFlowMedium`]: MenstruationFlow.MEDIUM,
  [`${C}MenstrualFlowHeavy`]: MenstruationFlow.HEAVY,
  [`${C}MenstrualFlowNone`]: MenstruationFlow.NONE,
  '1': MenstruationFlow.HAD,
  '2': MenstruationFlow.LIGHT,
  '3': MenstruationFlow.MEDIUM,
  '4': MenstruationFlow.HEAVY,
  '5': MenstruationFlow.NONE,
};

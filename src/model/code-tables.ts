// The numeric code tables of the unified model's enumerations (docs/wire-contract.md#data-model):
// `const` objects, name -> code. Their schemas are in enums.ts, which re-exports these; a module
// that needs only the codes imports them from here and so loads no schema library (an import's
// reader process: typebox is ~370 modules, about a fifth of the reader's CPU on a 32 MB export,
// issue 44).

/** Activity and Daily `metadata.upload_type`. */
export const UploadType = {
  UNKNOWN: 0,
  AUTOMATIC: 1,
  MANUAL: 2,
  UPDATE: 3,
  DELETE: 4,
  PENDING: 5,
  THIRD_PARTY_UPLOAD: 6,
} as const;

/** Sleep `metadata.upload_type`. 1 and 2 are swapped relative to UploadType (as upstream). */
export const SleepUploadType = {
  UNKNOWN: 0,
  MANUAL: 1,
  AUTOMATIC: 2,
  TENTATIVE: 3,
  INDETERMINATE: 4,
} as const;

export const SleepLevel = {
  UNKNOWN: 0,
  AWAKE: 1,
  SLEEPING: 2,
  OUT_OF_BED: 3,
  LIGHT: 4,
  DEEP: 5,
  REM: 6,
} as const;

export const ActivityLevel = {
  UNKNOWN: 0,
  REST: 1,
  INACTIVE: 2,
  LOW: 3,
  MEDIUM: 4,
  HIGH: 5,
} as const;

export const HeartRateZone = {
  ZONE_0: 0,
  ZONE_1: 1,
  ZONE_2: 2,
  ZONE_3: 3,
  ZONE_4: 4,
  ZONE_5: 5,
  OTHER: 6,
} as const;

export const HeartRateContext = {
  NOT_SET: 0,
  ACTIVE: 1,
  NOT_ACTIVE: 2,
} as const;

export const AFibFlag = {
  NEGATIVE: 0,
  POSITIVE: 1,
  INCONCLUSIVE: 2,
} as const;

export const GlucoseFlag = {
  NORMAL: 0,
  HIGH: 1,
  LOW: 2,
} as const;

export const TrendArrow = {
  UNKNOWN: 0,
  FALLING_QUICKLY: 1,
  FALLING: 2,
  FLAT: 3,
  RISING: 4,
  RISING_QUICKLY: 5,
} as const;

export const KetoneSampleType = {
  UNKNOWN: 0,
  BLOOD: 1,
  URINE: 2,
  BREATH: 3,
} as const;

export const OxygenSaturationType = {
  BLOOD_SPO2: 0,
  MUSCLE_SMO2: 1,
} as const;

export const RecoveryLevel = {
  UNKNOWN: 0,
  VERY_POOR: 1,
  POOR: 2,
  COMPROMISED: 3,
  OK: 4,
  GOOD: 5,
  VERY_GOOD: 6,
} as const;

/** `stress_rating`. -1 appears only in the docs' table; accepted so such payloads validate. */
export const StressLevel = {
  NOT_ENOUGH_DATA: -1,
  UNKNOWN: 0,
  REST: 1,
  LOW: 2,
  MEDIUM: 3,
  HIGH: 4,
} as const;

export const MenstruationFlow = {
  UNKNOWN: 0,
  NONE: 1,
  LIGHT: 2,
  MEDIUM: 3,
  HEAVY: 4,
  HAD: 5,
} as const;

export const MealType = {
  UNKNOWN: 0,
  BREAKFAST: 1,
  MORNING_SNACK: 2,
  LUNCH: 3,
  AFTERNOON_SNACK: 4,
  DINNER: 5,
  SNACK: 6,
} as const;

export const NutritionUnits = {
  UNKNOWN: 0,
  GRAM: 1,
  TEASPOON: 2,
  TABLESPOON: 3,
  CUP: 4,
  MEDIUM_EGG: 5,
  LARGE_EGG: 6,
  SMALL_EGG: 7,
  MILLILITER: 8,
  OUNCE: 9,
  COUNT: 10,
  SCOOP: 11,
  FLUID_OUNCE: 12,
} as const;

export const TimestampLocalization = {
  UTC: 0,
  LOCAL: 1,
} as const;

/** The newer integer form of the menstrual phase (V2-LATEST `MenstruationInterval`). */
export const MenstruationInterval = {
  UNKNOWN: 0,
  PERIOD: 1,
  FOLLICULAR: 2,
  FERTILE_WINDOW: 3,
  OVULATION: 4,
  LUTEAL: 5,
  PMS: 6,
  FIRST_TRIMESTER: 7,
  SECOND_TRIMESTER: 8,
  THIRD_TRIMESTER: 9,
} as const;

/** The union of codes of a code table, e.g. `CodeOf<typeof SleepLevel>` is `0 | 1 | ... | 6`. */
export type CodeOf<E extends Record<string, number>> = E[keyof E];

// Google Health `nutrition-log` + `hydration-log` (session types) -> Nutrition, one per local day.
// A nutrition log is one meal (v4 NutritionLog): `foodDisplayName`, `mealType`, `energy.kcal`,
// `totalCarbohydrate` / `totalFat` grams, and `nutrients[]` — every other nutrient (PROTEIN,
// SODIUM, SUGAR, DIETARY_FIBER, vitamins, minerals…) as `{nutrient, quantity: {grams}}`. Nutrients
// become the meal's macros and micros by name, in each key's unit (mg keys: grams × 1000). A
// hydration log is one drink, `amountConsumed.milliliters`. The day's summary sums them.
// Cannot map: the food database reference (`food`), UNSATURATED_FAT (no key), serving units the
// model has no code for (written as UNKNOWN with their amount).
import { type CodeOf, MealType, NutritionUnits } from '../../../model/enums.ts';
import { type MacroKey, microKeys, type Nutrition } from '../../../model/nutrition.ts';
import { localIsoDate } from '../../../model/time.ts';
import {
  dayBoundsOf,
  localizationOf,
  type NormalizeContext,
} from '../../../provider-kit/normalize/normalize.ts';
import { instantMs, numberOrNull, offsetMinutes, pointId, positiveOrNull, textOrNull, wire } from './time.ts';
import type { DataPoint } from './types.ts';

export type FitbitNutritionPayload = {
  'nutrition-log': readonly DataPoint[];
  'hydration-log'?: readonly DataPoint[];
};

/** Google's meal types (NutritionLog.mealType, with their documented meanings) -> the model's. */
const mealTypes: Readonly<Record<string, CodeOf<typeof MealType>>> = {
  BEFORE_BREAKFAST: MealType.MORNING_SNACK,
  BREAKFAST: MealType.BREAKFAST,
  BEFORE_LUNCH: MealType.MORNING_SNACK,
  LUNCH: MealType.LUNCH,
  BEFORE_DINNER: MealType.AFTERNOON_SNACK,
  DINNER: MealType.DINNER,
  AFTER_DINNER: MealType.SNACK,
  SNACK: MealType.SNACK,
};
const units: Readonly<Record<string, CodeOf<typeof NutritionUnits>>> = {
  GRAM: NutritionUnits.GRAM,
  MILLILITER: NutritionUnits.MILLILITER,
  OUNCE: NutritionUnits.OUNCE,
  CUP: NutritionUnits.CUP,
  TABLESPOON: NutritionUnits.TABLESPOON,
  TEASPOON: NutritionUnits.TEASPOON,
};
/** Nutrients whose macro key is not their own name. */
const macroNames: Readonly<Record<string, MacroKey>> = {
  CARBOHYDRATES: 'carbohydrates_g',
  CHOLESTEROL: 'cholesterol_mg',
  DIETARY_FIBER: 'fiber_g',
  PROTEIN: 'protein_g',
  SATURATED_FAT: 'saturated_fat_g',
  SODIUM: 'sodium_mg',
  SUGAR: 'sugar_g',
  TRANS_FAT: 'trans_fat_g',
};
const micros = new Set<string>(microKeys);

/** Where a nutrient goes: its macro key, else the micro named after it (`VITAMIN_B12` -> `vitamin_B12_mg`). */
function nutrientKey(nutrient: string): { group: 'macros' | 'micros'; key: string } | null {
  const macro = macroNames[nutrient];
  if (macro) return { group: 'macros', key: macro };
  const stem = nutrient
    .toLowerCase()
    .replace(/^vitamin_(\w+)$/, (_, letter: string) => `vitamin_${letter.toUpperCase()}`);
  for (const key of [`${stem}_mg`, `${stem}_g`]) if (micros.has(key)) return { group: 'micros', key };
  return null;
}

type Meal = NonNullable<Nutrition['meals']>[number];
type Drink = NonNullable<Nutrition['drink_samples']>[number];
type Day = { offset: number; meals: Meal[]; drinks: Drink[] };

function nutrientsOf(log: NonNullable<DataPoint['nutritionLog']>) {
  const macros: Record<string, number> = {};
  const found: Record<string, number> = {};
  const set = (into: Record<string, number>, key: string, value: number | null) => {
    if (value !== null && value >= 0) into[key] = value;
  };
  set(macros, 'calories', numberOrNull(log.energy?.kcal));
  set(macros, 'carbohydrates_g', numberOrNull(log.totalCarbohydrate?.grams));
  set(macros, 'fat_g', numberOrNull(log.totalFat?.grams));
  for (const entry of Array.isArray(log.nutrients) ? log.nutrients : []) {
    const target = typeof entry?.nutrient === 'string' ? nutrientKey(entry.nutrient) : null;
    const grams = numberOrNull(entry?.quantity?.grams);
    if (!target || grams === null) continue;
    const value = target.key.endsWith('_mg') ? grams * 1000 : grams;
    // The log's own totals win over a nutrient of the same name.
    if (target.group === 'macros' && target.key in macros) continue;
    set(target.group === 'macros' ? macros : found, target.key, value);
  }
  return { macros, micros: found };
}

export function normalizeNutrition(payload: FitbitNutritionPayload, context: NormalizeContext): Nutrition[] {
  const days = new Map<string, Day>();
  const dayAt = (atMs: number, offset: number) => {
    const key = localIsoDate(atMs, offset);
    let day = days.get(key);
    if (!day) {
      day = { offset, meals: [], drinks: [] };
      days.set(key, day);
    }
    return day;
  };
  for (const point of payload['nutrition-log']) {
    const log = point?.nutritionLog;
    const id = pointId(point?.name);
    const atMs = instantMs(log?.interval?.startTime);
    if (!log || !id || atMs === null) continue;
    const offset = offsetMinutes(atMs, log.interval?.startUtcOffset, log.interval?.civilStartTime, context);
    dayAt(atMs, offset).meals.push({
      id,
      name: textOrNull(log.foodDisplayName) ?? 'Food',
      timestamp: wire(atMs, offset),
      type: mealTypes[log.mealType ?? ''] ?? MealType.UNKNOWN,
      quantity: {
        unit: units[log.serving?.unit ?? ''] ?? NutritionUnits.UNKNOWN,
        amount: numberOrNull(log.serving?.amount) ?? 1,
      },
      ...nutrientsOf(log),
    });
  }
  for (const point of payload['hydration-log'] ?? []) {
    const log = point?.hydrationLog;
    const atMs = instantMs(log?.interval?.startTime);
    const volume = positiveOrNull(log?.amountConsumed?.milliliters);
    if (!log || atMs === null || volume === null) continue;
    const offset = offsetMinutes(atMs, log.interval?.startUtcOffset, log.interval?.civilStartTime, context);
    dayAt(atMs, offset).drinks.push({
      timestamp: wire(atMs, offset),
      drink_volume: volume,
      drink_unit: NutritionUnits.MILLILITER,
      drink_name: 'Water',
    });
  }
  const records: Nutrition[] = [];
  for (const [date, day] of [...days].sort(([a], [b]) => a.localeCompare(b))) {
    const sum = (group: 'macros' | 'micros') => {
      const total: Record<string, number> = {};
      for (const meal of day.meals)
        for (const [key, value] of Object.entries(meal[group]))
          if (typeof value === 'number') total[key] = (total[key] ?? 0) + value;
      return total;
    };
    const water = day.drinks.reduce((total, drink) => total + (drink.drink_volume ?? 0), 0);
    records.push({
      metadata: { ...dayBoundsOf(date, day.offset), timestamp_localization: localizationOf(day.offset) },
      summary: {
        macros: sum('macros'),
        micros: sum('micros'),
        water_ml: day.drinks.length > 0 ? water : null,
      },
      meals: day.meals,
      drink_samples: day.drinks,
    });
  }
  return records;
}

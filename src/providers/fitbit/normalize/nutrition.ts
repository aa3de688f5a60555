// Google Health `nutrition-log` + `hydration-log` -> Nutrition, one per local day.
// A nutrition log is one meal: `foodDisplayName`, `mealType` (BREAKFAST, LUNCH, DINNER, SNACK…),
// `energy.kcal`, `totalCarbohydrate` / `totalFat` / `protein` grams, `nutrients[]` (sodium, fiber,
// sugar… in grams or milligrams) [?]; a hydration log is one drink, `amountConsumed.milliliters`.
// The day's summary sums them. Cannot map: the food database reference (`food`), serving units
// Google names that the model has no code for (written as UNKNOWN with their amount).
import { type CodeOf, MealType, NutritionUnits } from '../../../model/enums.ts';
import type { Nutrition } from '../../../model/nutrition.ts';
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

const mealTypes: Readonly<Record<string, CodeOf<typeof MealType>>> = {
  BREAKFAST: MealType.BREAKFAST,
  MORNING_SNACK: MealType.MORNING_SNACK,
  LUNCH: MealType.LUNCH,
  AFTERNOON_SNACK: MealType.AFTERNOON_SNACK,
  DINNER: MealType.DINNER,
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
/** Google nutrient names -> macro keys (grams, sodium in mg). */
const nutrientKeys: Readonly<Record<string, { key: string; milligrams: boolean }>> = {
  SODIUM: { key: 'sodium_mg', milligrams: true },
  DIETARY_FIBER: { key: 'fiber_g', milligrams: false },
  TOTAL_SUGARS: { key: 'sugar_g', milligrams: false },
  SATURATED_FAT: { key: 'saturated_fat_g', milligrams: false },
  TRANS_FAT: { key: 'trans_fat_g', milligrams: false },
  CHOLESTEROL: { key: 'cholesterol_mg', milligrams: true },
};

type Meal = NonNullable<Nutrition['meals']>[number];
type Drink = NonNullable<Nutrition['drink_samples']>[number];
type Day = { offset: number; meals: Meal[]; drinks: Drink[] };

function macrosOf(log: NonNullable<DataPoint['nutritionLog']>): Record<string, number> {
  const macros: Record<string, number> = {};
  const set = (key: string, value: number | null) => {
    if (value !== null && value >= 0) macros[key] = value;
  };
  set('calories', numberOrNull(log.energy?.kcal));
  set('carbohydrates_g', numberOrNull(log.totalCarbohydrate?.grams));
  set('fat_g', numberOrNull(log.totalFat?.grams));
  set('protein_g', numberOrNull(log.protein?.grams));
  for (const entry of Array.isArray(log.nutrients) ? log.nutrients : []) {
    const target = typeof entry?.nutrient === 'string' ? nutrientKeys[entry.nutrient] : undefined;
    if (!target) continue;
    const grams = numberOrNull(entry.amount?.grams);
    const milligrams = numberOrNull(entry.amount?.milligrams);
    set(
      target.key,
      target.milligrams
        ? (milligrams ?? (grams === null ? null : grams * 1000))
        : (grams ?? (milligrams === null ? null : milligrams / 1000)),
    );
  }
  return macros;
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
    const time = log?.interval?.startTime ?? log?.sampleTime?.physicalTime;
    const atMs = instantMs(time);
    if (!log || !id || atMs === null) continue;
    const offset = offsetMinutes(
      atMs,
      log.interval?.startUtcOffset ?? log.sampleTime?.utcOffset,
      log.interval?.civilStartTime ?? log.sampleTime?.civilTime,
      context,
    );
    dayAt(atMs, offset).meals.push({
      id,
      name: textOrNull(log.foodDisplayName) ?? 'Food',
      timestamp: wire(atMs, offset),
      type: mealTypes[log.mealType ?? ''] ?? MealType.UNKNOWN,
      quantity: {
        unit: units[log.serving?.unit ?? ''] ?? NutritionUnits.UNKNOWN,
        amount: numberOrNull(log.serving?.amount) ?? 1,
      },
      macros: macrosOf(log),
      micros: {},
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
    const total: Record<string, number> = {};
    for (const meal of day.meals)
      for (const [key, value] of Object.entries(meal.macros))
        if (typeof value === 'number') total[key] = (total[key] ?? 0) + value;
    const water = day.drinks.reduce((sum, drink) => sum + (drink.drink_volume ?? 0), 0);
    records.push({
      metadata: { ...dayBoundsOf(date, day.offset), timestamp_localization: localizationOf(day.offset) },
      summary: { macros: total, water_ml: day.drinks.length > 0 ? water : null },
      meals: day.meals,
      drink_samples: day.drinks,
    });
  }
  return records;
}

// Nutrition records: the day's meals and drinks. Rule (tested): every macro in `summary` is the
// sum of that key over the meals rounded to 2 decimals, every micro likewise rounded to 4 (some
// are fractions of a milligram); `water_ml` is the water among the drinks, `drink_ml` all of them.
import { MealType, NutritionUnits } from '../../model/enums.ts';
import {
  type Meal,
  macroKeys,
  type Nutrition,
  type NutritionMacros,
  type NutritionMicros,
} from '../../model/nutrition.ts';
import { dayNumberToIsoDate } from '../../model/time.ts';
import type { DayContext } from './context.ts';
import { BREAKFASTS, DINNERS, type Food, LUNCHES, SIDES, SNACKS, trackedMicros } from './foods.ts';
import { Random, stableUuid } from './random.ts';
import { round } from './series.ts';
import { sleepWindow } from './sleep-window.ts';

const MINUTE_MS = 60_000;
/** Summary and meal values are rounded to these decimals (micros can be fractions of a mg). */
export const MACRO_DECIMALS = 2;
export const MICRO_DECIMALS = 4;

type MealCode = (typeof MealType)[keyof typeof MealType];

export interface PlannedMeal {
  type: MealCode;
  atMs: number;
  foods: { food: Food; portion: number }[];
}

export interface Drink {
  atMs: number;
  volumeMl: number;
  name: 'Water' | 'Coffee' | 'Tea';
}

/** The day's meals (times and portions): glucose and daily intake read these too. */
export function mealsOfDay(context: DayContext): PlannedMeal[] {
  const random = new Random(context.seed, context.date, 'meals');
  const dayStart = context.startMs;
  const at = (fromMinutes: number, toMinutes: number) =>
    dayStart + random.int(fromMinutes, toMinutes) * MINUTE_MS;
  const portion = () => round(random.between(1, 1.45), 2);
  const meals: PlannedMeal[] = [];
  const breakfast = [{ food: random.pick(BREAKFASTS), portion: portion() }];
  if (random.chance(0.6)) breakfast.push({ food: SIDES[0] as Food, portion: 1 });
  // Breakfast after waking up, however late that is today.
  const wakeMs = sleepWindow(
    context.seed,
    dayNumberToIsoDate(context.dayNumber - 1),
    context.offsetMinutes,
  ).endMs;
  meals.push({
    type: MealType.BREAKFAST,
    atMs: Math.max(at(7 * 60, 8 * 60 + 30), wakeMs + 15 * MINUTE_MS),
    foods: breakfast,
  });
  if (random.chance(0.5))
    meals.push({
      type: MealType.MORNING_SNACK,
      atMs: at(10 * 60, 11 * 60),
      foods: [{ food: random.pick(SNACKS), portion: 1 }],
    });
  meals.push({
    type: MealType.LUNCH,
    atMs: at(12 * 60, 13 * 60 + 30),
    foods: [{ food: random.pick(LUNCHES), portion: portion() }],
  });
  if (random.chance(0.7))
    meals.push({
      type: MealType.AFTERNOON_SNACK,
      atMs: at(15 * 60, 16 * 60 + 30),
      foods: [{ food: random.pick(SNACKS), portion: 1 }],
    });
  const dinner = [{ food: random.pick(DINNERS), portion: portion() }];
  if (random.chance(0.4)) dinner.push({ food: SIDES[2] as Food, portion: 1 });
  if (random.chance(0.2)) dinner.push({ food: SIDES[1] as Food, portion: 1 });
  // Dinner before bed, whatever time bedtime is today.
  const bedtime = sleepWindow(context.seed, context.date, context.offsetMinutes).startMs;
  meals.push({
    type: MealType.DINNER,
    atMs: Math.min(at(18 * 60 + 30, 20 * 60 + 15), bedtime - 90 * MINUTE_MS),
    foods: dinner,
  });
  return meals;
}

export function drinksOfDay(context: DayContext): Drink[] {
  const random = new Random(context.seed, context.date, 'drinks');
  const drinks: Drink[] = [];
  const coffees = random.int(0, 2);
  for (let index = 0; index < coffees; index++) {
    drinks.push({
      atMs: context.startMs + random.int(8 * 60, 15 * 60) * MINUTE_MS,
      volumeMl: 200,
      name: 'Coffee',
    });
  }
  if (random.chance(0.4))
    drinks.push({
      atMs: context.startMs + random.int(15 * 60, 21 * 60) * MINUTE_MS,
      volumeMl: 250,
      name: 'Tea',
    });
  const glasses = random.int(4, 9);
  for (let index = 0; index < glasses; index++) {
    drinks.push({
      atMs: context.startMs + random.int(7 * 60, 21 * 60) * MINUTE_MS,
      volumeMl: random.pick([250, 330, 500]),
      name: 'Water',
    });
  }
  return drinks.sort((left, right) => left.atMs - right.atMs);
}

function mealMacros(meal: PlannedMeal): NutritionMacros {
  const total = (pick: (food: Food) => number) =>
    round(
      meal.foods.reduce((sum, { food, portion }) => sum + pick(food) * portion, 0),
      MACRO_DECIMALS,
    );
  const protein = total((food) => food.protein);
  const carbohydrates = total((food) => food.carbohydrates);
  const fat = total((food) => food.fat);
  const alcohol = total((food) => food.alcohol);
  const fiber = total((food) => food.fiber);
  return {
    alcohol_g: alcohol,
    calories: round(4 * protein + 4 * carbohydrates + 9 * fat + 7 * alcohol, 2),
    carbohydrates_g: carbohydrates,
    cholesterol_mg: total((food) => food.cholesterolMg),
    fat_g: fat,
    fiber_g: fiber,
    net_carbohydrates_g: round(carbohydrates - fiber, 2),
    protein_g: protein,
    saturated_fat_g: total((food) => food.saturatedFat),
    sodium_mg: total((food) => food.sodiumMg),
    sugar_g: total((food) => food.sugar),
    trans_fat_g: total((food) => (food.saturatedFat > 4 ? 0.2 : 0)),
  };
}

function mealMicros(meal: PlannedMeal): NutritionMicros {
  const micros: NutritionMicros = {};
  for (const key of trackedMicros) {
    micros[key] = round(
      meal.foods.reduce((sum, { food, portion }) => sum + (food.micros[key] ?? 0) * portion, 0),
      MICRO_DECIMALS,
    );
  }
  return micros;
}

/** Sums `key` over `entries`, rounded like the per-meal values. */
function totalOf<K extends string>(
  entries: readonly Partial<Record<K, number | null>>[],
  key: K,
  decimals: number,
): number {
  return round(
    entries.reduce((sum, entry) => sum + (entry[key] ?? 0), 0),
    decimals,
  );
}

export function dayIntakeCalories(context: DayContext): number {
  return totalOf(mealsOfDay(context).map(mealMacros), 'calories', MACRO_DECIMALS);
}

export function dayWaterMl(context: DayContext): number {
  return drinksOfDay(context).reduce((sum, drink) => sum + (drink.name === 'Water' ? drink.volumeMl : 0), 0);
}

export function generateNutrition(context: DayContext): Nutrition[] {
  const planned = mealsOfDay(context);
  const meals: Meal[] = planned.map((meal, index) => ({
    id: stableUuid(context.seed, 'meal', context.date, String(index)),
    name: meal.foods.map(({ food }) => food.name).join(', '),
    timestamp: context.time(meal.atMs),
    type: meal.type,
    quantity: {
      unit: NutritionUnits.GRAM,
      amount: round(
        meal.foods.reduce((sum, { food, portion }) => sum + food.grams * portion, 0),
        1,
      ),
    },
    macros: mealMacros(meal),
    micros: mealMicros(meal),
  }));
  const drinks = drinksOfDay(context);
  const macroList = meals.map((meal) => meal.macros);
  const microList = meals.map((meal) => meal.micros);
  const macros: NutritionMacros = {};
  for (const key of macroKeys) macros[key] = totalOf(macroList, key, MACRO_DECIMALS);
  const micros: NutritionMicros = {};
  for (const key of trackedMicros) micros[key] = totalOf(microList, key, MICRO_DECIMALS);
  return [
    {
      metadata: {
        start_time: context.time(context.startMs),
        end_time: context.time(context.endMs),
        timestamp_localization: context.timestampLocalization,
      },
      summary: {
        macros,
        micros,
        water_ml: dayWaterMl(context),
        drink_ml: drinks.reduce((sum, drink) => sum + drink.volumeMl, 0),
      },
      meals,
      drink_samples: context.withSamples
        ? drinks.map((drink) => ({
            timestamp: context.time(drink.atMs),
            drink_volume: drink.volumeMl,
            drink_unit: NutritionUnits.MILLILITER,
            drink_name: drink.name,
          }))
        : [],
    },
  ];
}

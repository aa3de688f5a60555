// Nutrition: one day of food and drink (docs/wire-contract.md#data-model). Identity: start_time + end_time.
import Type, { type Static } from 'typebox';
import { MealTypeSchema, NutritionUnitsSchema } from './enums.ts';
import { DrinkSample } from './samples.ts';
import { DateTimeText, Nullable, NullableArray, NullableNumber } from './schema-helpers.ts';
import { dayBounds, timestampLocalization } from './shared.ts';

/** Macro keys, in the contract's order; units are in the names. */
export const macroKeys = [
  'alcohol_g',
  'calories',
  'carbohydrates_g',
  'cholesterol_mg',
  'fat_g',
  'fiber_g',
  'net_carbohydrates_g',
  'protein_g',
  'saturated_fat_g',
  'sodium_mg',
  'sugar_g',
  'trans_fat_g',
] as const;

/** Micro keys: vitamins and minerals (mg), amino acids (g), fats and starch (g). `sodium_mg`
 *  is listed by the newer schema only (the SDK keeps sodium among the macros). */
export const microKeys = [
  'biotin_mg',
  'caffeine_mg',
  'calcium_mg',
  'chloride_mg',
  'chromium_mg',
  'copper_mg',
  'folate_mg',
  'folic_acid_mg',
  'iodine_mg',
  'iron_mg',
  'magnesium_mg',
  'manganese_mg',
  'molybdenum_mg',
  'niacin_mg',
  'pantothenic_acid_mg',
  'phosphorus_mg',
  'potassium_mg',
  'riboflavin_mg',
  'selenium_mg',
  'sodium_mg',
  'thiamin_mg',
  'vitamin_A_mg',
  'vitamin_B12_mg',
  'vitamin_B6_mg',
  'vitamin_C_mg',
  'vitamin_D_mg',
  'vitamin_D2_mg',
  'vitamin_D3_mg',
  'vitamin_E_mg',
  'vitamin_K_mg',
  'zinc_mg',
  'cystine_g',
  'histidine_g',
  'isoleucine_g',
  'leucine_g',
  'lysine_g',
  'methionine_g',
  'phenylalanine_g',
  'threonine_g',
  'tryptophan_g',
  'tyrosine_g',
  'valine_g',
  'monounsaturated_fat_g',
  'polyunsaturated_fat_g',
  'omega3_g',
  'omega6_g',
  'starch_g',
] as const;

export type MacroKey = (typeof macroKeys)[number];
export type MicroKey = (typeof microKeys)[number];

type NullableNumberSchema = ReturnType<typeof NullableNumber>;

function numberFields<const K extends readonly string[]>(
  keys: K,
): { [P in K[number]]: NullableNumberSchema } {
  return Object.fromEntries(keys.map((key) => [key, NullableNumber()])) as {
    [P in K[number]]: NullableNumberSchema;
  };
}

export const NutritionMacros = Type.Object(numberFields(macroKeys), { title: 'NutritionMacros' });
export const NutritionMicros = Type.Object(numberFields(microKeys), { title: 'NutritionMicros' });

/** Every key is required in the SDK. */
export const Meal = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    timestamp: DateTimeText(),
    type: MealTypeSchema,
    quantity: Type.Object(
      { unit: NutritionUnitsSchema, amount: Type.Number() },
      { title: 'NutritionQuantity' },
    ),
    macros: NutritionMacros,
    micros: NutritionMicros,
  },
  { title: 'Meal' },
);

export const Nutrition = Type.Object(
  {
    metadata: Type.Object(
      { ...dayBounds, timestamp_localization: timestampLocalization },
      { title: 'NutritionMetadata' },
    ),
    summary: Nullable(
      Type.Object(
        {
          macros: Nullable(NutritionMacros),
          micros: Nullable(NutritionMicros),
          water_ml: NullableNumber(),
          drink_ml: NullableNumber(),
        },
        { title: 'NutritionSummary' },
      ),
    ),
    meals: NullableArray(Meal),
    drink_samples: NullableArray(DrinkSample),
  },
  {
    $id: 'Nutrition',
    title: 'Nutrition',
    description: 'One day of food and drink. Identity: start_time + end_time.',
  },
);

export type Nutrition = Static<typeof Nutrition>;
export type Meal = Static<typeof Meal>;
export type NutritionMacros = Static<typeof NutritionMacros>;
export type NutritionMicros = Static<typeof NutritionMicros>;

// A small food table for sandbox meals: one typical serving each. Energy is not listed; it is
// derived from the macros (4 kcal/g protein and carbohydrate, 9 fat, 7 alcohol) so it always
// agrees with them.
import type { MicroKey } from '../../model/nutrition.ts';

export interface Food {
  name: string;
  grams: number;
  protein: number;
  carbohydrates: number;
  fat: number;
  fiber: number;
  sugar: number;
  saturatedFat: number;
  sodiumMg: number;
  cholesterolMg: number;
  alcohol: number;
  micros: Partial<Record<TrackedMicro, number>>;
}

/** Micros the table knows; meals report these, all others are unknown (absent). */
export const trackedMicros = [
  'calcium_mg',
  'iron_mg',
  'magnesium_mg',
  'potassium_mg',
  'zinc_mg',
  'vitamin_C_mg',
  'vitamin_D_mg',
  'vitamin_B12_mg',
  'folate_mg',
  'caffeine_mg',
  'omega3_g',
  'monounsaturated_fat_g',
  'polyunsaturated_fat_g',
  'starch_g',
] as const satisfies readonly MicroKey[];
export type TrackedMicro = (typeof trackedMicros)[number];

function food(
  name: string,
  grams: number,
  [protein, carbohydrates, fat, fiber, sugar, saturatedFat]: readonly number[],
  [sodiumMg, cholesterolMg, alcohol]: readonly number[],
  micros: Food['micros'],
): Food {
  return {
    name,
    grams,
    protein: protein ?? 0,
    carbohydrates: carbohydrates ?? 0,
    fat: fat ?? 0,
    fiber: fiber ?? 0,
    sugar: sugar ?? 0,
    saturatedFat: saturatedFat ?? 0,
    sodiumMg: sodiumMg ?? 0,
    cholesterolMg: cholesterolMg ?? 0,
    alcohol: alcohol ?? 0,
    micros,
  };
}

// [protein, carbs, fat, fiber, sugar, saturated fat] g; [sodium mg, cholesterol mg, alcohol g]
export const BREAKFASTS: readonly Food[] = [
  food('Oatmeal with milk', 250, [11, 45, 7, 6, 12, 2.5], [110, 10, 0], {
    calcium_mg: 250,
    iron_mg: 3.5,
    magnesium_mg: 90,
    potassium_mg: 450,
    starch_g: 28,
  }),
  food('Greek yogurt with berries', 220, [18, 22, 5, 3, 17, 3], [70, 15, 0], {
    calcium_mg: 230,
    vitamin_C_mg: 25,
    vitamin_B12_mg: 0.0012,
    potassium_mg: 320,
  }),
  food('Scrambled eggs on toast', 210, [20, 28, 16, 3, 3, 5], [480, 370, 0], {
    iron_mg: 2.8,
    vitamin_D_mg: 0.002,
    vitamin_B12_mg: 0.0011,
    folate_mg: 0.09,
    starch_g: 20,
  }),
  food('Avocado toast', 180, [8, 32, 17, 9, 3, 2.5], [390, 0, 0], {
    potassium_mg: 560,
    monounsaturated_fat_g: 10,
    folate_mg: 0.1,
    starch_g: 22,
  }),
];

export const LUNCHES: readonly Food[] = [
  food('Chicken salad', 320, [35, 14, 16, 5, 7, 3], [520, 95, 0], {
    iron_mg: 2,
    potassium_mg: 700,
    vitamin_C_mg: 40,
    monounsaturated_fat_g: 8,
  }),
  food('Lentil soup with bread', 400, [22, 62, 9, 15, 8, 1.5], [780, 0, 0], {
    iron_mg: 6.5,
    magnesium_mg: 85,
    potassium_mg: 900,
    folate_mg: 0.35,
    starch_g: 38,
  }),
  food('Turkey sandwich', 250, [28, 42, 12, 5, 6, 3], [950, 55, 0], { iron_mg: 3, zinc_mg: 3, starch_g: 34 }),
  food('Quinoa bowl', 380, [19, 58, 18, 9, 6, 2.5], [430, 0, 0], {
    magnesium_mg: 160,
    iron_mg: 4,
    potassium_mg: 650,
    starch_g: 40,
    polyunsaturated_fat_g: 6,
  }),
  food('Salmon sushi', 300, [24, 70, 8, 2, 9, 1.5], [900, 40, 0], {
    omega3_g: 1.2,
    vitamin_D_mg: 0.006,
    vitamin_B12_mg: 0.0025,
    starch_g: 60,
  }),
];

export const DINNERS: readonly Food[] = [
  food('Salmon, rice and broccoli', 450, [38, 60, 18, 5, 3, 3.5], [300, 85, 0], {
    omega3_g: 2.1,
    vitamin_D_mg: 0.011,
    vitamin_C_mg: 80,
    potassium_mg: 900,
    starch_g: 52,
  }),
  food('Pasta bolognese', 420, [30, 78, 18, 6, 10, 6.5], [650, 60, 0], {
    iron_mg: 4.5,
    zinc_mg: 6,
    potassium_mg: 750,
    starch_g: 65,
  }),
  food('Tofu stir-fry with noodles', 400, [24, 64, 16, 6, 11, 2.5], [980, 0, 0], {
    calcium_mg: 350,
    iron_mg: 5,
    magnesium_mg: 110,
    starch_g: 50,
    polyunsaturated_fat_g: 8,
  }),
  food('Beef chili', 380, [34, 38, 17, 11, 8, 6.5], [820, 75, 0], {
    iron_mg: 6,
    zinc_mg: 8,
    potassium_mg: 950,
    starch_g: 20,
  }),
  food('Vegetable curry with rice', 430, [14, 82, 15, 8, 12, 7], [700, 0, 0], {
    potassium_mg: 800,
    vitamin_C_mg: 45,
    magnesium_mg: 95,
    starch_g: 64,
  }),
];

export const SNACKS: readonly Food[] = [
  food('Apple', 180, [0.5, 25, 0.3, 4.4, 19, 0.1], [2, 0, 0], { vitamin_C_mg: 8, potassium_mg: 195 }),
  food('Almonds', 30, [6, 6, 15, 3.5, 1.2, 1.1], [0, 0, 0], {
    magnesium_mg: 80,
    calcium_mg: 80,
    monounsaturated_fat_g: 9.5,
  }),
  food('Protein bar', 60, [20, 22, 7, 5, 6, 3], [200, 10, 0], { calcium_mg: 150, iron_mg: 2 }),
  food('Dark chocolate', 25, [2, 11, 10, 2.8, 6, 6], [5, 0, 0], {
    iron_mg: 3,
    magnesium_mg: 55,
    caffeine_mg: 20,
  }),
  food('Hummus with carrots', 150, [6, 18, 9, 6, 6, 1.2], [380, 0, 0], {
    potassium_mg: 420,
    folate_mg: 0.07,
  }),
  food('Banana', 120, [1.3, 27, 0.4, 3.1, 14, 0.1], [1, 0, 0], {
    potassium_mg: 420,
    magnesium_mg: 32,
    vitamin_C_mg: 10,
  }),
];

export const SIDES: readonly Food[] = [
  food('Flat white', 240, [8, 11, 7, 0, 11, 4.5], [110, 25, 0], { calcium_mg: 280, caffeine_mg: 130 }),
  food('Glass of red wine', 150, [0.1, 4, 0, 0, 1, 0], [6, 0, 14], { potassium_mg: 190 }),
  food('Side salad', 100, [1.5, 5, 7, 2, 3, 1], [150, 0, 0], { vitamin_C_mg: 15, folate_mg: 0.06 }),
];

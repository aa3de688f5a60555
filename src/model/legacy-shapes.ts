// The older contract's shapes of a few fields, and their current form (the vendor's current
// published schema, docs/vendor-spec-deviations.md). The model's schemas describe only the current
// form; records that still arrive in the older one (a mobile SDK built against the 2.1 client, a
// connector not yet updated, rows stored before the change) are brought to it here, before they
// are validated and stored. Nothing is guessed: a value the current form cannot hold becomes null.
//
//   estimated_fitness_age   "21"                                   -> 21
//   *_contributors          [{contributor_name, contributor_score}] -> {name: score}
//   current_phase           "luteal"                               -> 5 (MenstruationInterval)
//   cycle_length_days       "33"                                   -> 33
//   is_predicted_cycle      "false"                                -> false
//   drink_unit              "ml"                                   -> 8 (NutritionUnits)
import { type MenstrualPhase, MenstruationInterval, NutritionUnits } from './enums.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The SDK's string phases, by the integer phase the current schema names. */
const PHASE_CODES: Record<MenstrualPhase, number> = {
  unknown: MenstruationInterval.UNKNOWN,
  menstrual: MenstruationInterval.PERIOD,
  follicular: MenstruationInterval.FOLLICULAR,
  fertile: MenstruationInterval.FERTILE_WINDOW,
  ovulation: MenstruationInterval.OVULATION,
  luteal: MenstruationInterval.LUTEAL,
  pms: MenstruationInterval.PMS,
  first_trimester: MenstruationInterval.FIRST_TRIMESTER,
  second_trimester: MenstruationInterval.SECOND_TRIMESTER,
  third_trimester: MenstruationInterval.THIRD_TRIMESTER,
};

/** Unit names and abbreviations seen in older payloads, by NutritionUnits code. */
const UNIT_CODES: Record<string, number> = {
  unknown: NutritionUnits.UNKNOWN,
  g: NutritionUnits.GRAM,
  gram: NutritionUnits.GRAM,
  grams: NutritionUnits.GRAM,
  tsp: NutritionUnits.TEASPOON,
  teaspoon: NutritionUnits.TEASPOON,
  tbsp: NutritionUnits.TABLESPOON,
  tablespoon: NutritionUnits.TABLESPOON,
  cup: NutritionUnits.CUP,
  cups: NutritionUnits.CUP,
  medium_egg: NutritionUnits.MEDIUM_EGG,
  large_egg: NutritionUnits.LARGE_EGG,
  small_egg: NutritionUnits.SMALL_EGG,
  ml: NutritionUnits.MILLILITER,
  milliliter: NutritionUnits.MILLILITER,
  millilitre: NutritionUnits.MILLILITER,
  milliliters: NutritionUnits.MILLILITER,
  oz: NutritionUnits.OUNCE,
  ounce: NutritionUnits.OUNCE,
  count: NutritionUnits.COUNT,
  scoop: NutritionUnits.SCOOP,
  fl_oz: NutritionUnits.FLUID_OUNCE,
  floz: NutritionUnits.FLUID_OUNCE,
  fluid_ounce: NutritionUnits.FLUID_OUNCE,
};

const NUTRITION_UNIT_CODES = new Set<number>(Object.values(NutritionUnits));
const PHASE_CODE_SET = new Set<number>(Object.values(MenstruationInterval));

/** A whole number from a number or numeric text ("33", "21.0"); null when there is none. */
export function toInteger(value: unknown): number | null | undefined {
  if (value === undefined || value === null) return value;
  const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
  if (typeof value === 'string' && value.trim() === '') return null;
  return Number.isFinite(number) ? Math.round(number) : null;
}

function toBoolean(value: unknown): boolean | null | undefined {
  if (value === undefined || value === null || typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === 'true') return true;
    if (text === 'false') return false;
  }
  return null;
}

/** The current form of a menstrual phase: an integer MenstruationInterval code, or null. */
export function toPhaseCode(value: unknown): number | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value === 'number') return PHASE_CODE_SET.has(value) ? value : null;
  if (typeof value !== 'string') return null;
  const text = value.trim().toLowerCase();
  if (/^\d+$/.test(text)) return toPhaseCode(Number(text));
  return PHASE_CODES[text as MenstrualPhase] ?? null;
}

/** The current form of a drink or food unit: an integer NutritionUnits code, or null. */
export function toNutritionUnitCode(value: unknown): number | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value === 'number') return NUTRITION_UNIT_CODES.has(value) ? value : null;
  if (typeof value !== 'string') return null;
  const text = value
    .trim()
    .toLowerCase()
    .replace(/[\s.-]+/g, '_');
  if (/^\d+$/.test(text)) return toNutritionUnitCode(Number(text));
  return UNIT_CODES[text] ?? UNIT_CODES[text.replace(/_/g, '')] ?? null;
}

/** Contributors as the current name -> score map; the SDK's `[{contributor_name, contributor_score}]` folded in. */
export function toContributorMap(value: unknown): Record<string, number> | null | undefined {
  if (value === undefined || value === null) return value;
  const map: Record<string, number> = {};
  if (Array.isArray(value)) {
    for (const entry of value) {
      if (!isObject(entry)) continue;
      const { contributor_name: name, contributor_score: score } = entry;
      if (typeof name === 'string' && typeof score === 'number' && Number.isFinite(score)) map[name] = score;
    }
    return map;
  }
  if (!isObject(value)) return null;
  for (const [name, score] of Object.entries(value)) {
    if (typeof score === 'number' && Number.isFinite(score)) map[name] = score;
  }
  return map;
}

/** Sets `key` to `convert(object[key])` when the key is present and the value changes. */
function convertKey(object: Json, key: string, convert: (value: unknown) => unknown): Json {
  if (!Object.hasOwn(object, key)) return object;
  const value = object[key];
  const converted = convert(value);
  return converted === value ? object : { ...object, [key]: converted };
}

function convertChild(object: Json, key: string, convert: (child: Json) => Json): Json {
  const child = object[key];
  if (!isObject(child)) return object;
  const converted = convert(child);
  return converted === child ? object : { ...object, [key]: converted };
}

function convertItems(object: Json, key: string, convert: (item: Json) => Json): Json {
  const items = object[key];
  if (!Array.isArray(items)) return object;
  let changed = false;
  const next = items.map((item: unknown) => {
    if (!isObject(item)) return item;
    const converted = convert(item);
    if (converted !== item) changed = true;
    return converted;
  });
  return changed ? { ...object, [key]: next } : object;
}

/** Every `*_contributors` key of a data_enrichment object as a map. */
function contributorsOf(enrichment: Json): Json {
  let result = enrichment;
  for (const key of Object.keys(enrichment)) {
    if (key.endsWith('_contributors')) result = convertKey(result, key, toContributorMap);
  }
  return result;
}

const UPGRADES: Record<string, (record: Json) => Json> = {
  body: (record) =>
    convertChild(record, 'measurements_data', (data) =>
      convertItems(data, 'measurements', (sample) => convertKey(sample, 'estimated_fitness_age', toInteger)),
    ),
  daily: (record) => convertChild(record, 'data_enrichment', contributorsOf),
  sleep: (record) => convertChild(record, 'data_enrichment', contributorsOf),
  activity: (record) => convertChild(record, 'data_enrichment', contributorsOf),
  menstruation: (record) =>
    convertChild(record, 'menstruation_data', (data) => {
      let result = convertKey(data, 'current_phase', toPhaseCode);
      result = convertKey(result, 'cycle_length_days', toInteger);
      result = convertKey(result, 'is_predicted_cycle', toBoolean);
      return result;
    }),
  nutrition: (record) =>
    convertItems(record, 'drink_samples', (sample) => convertKey(sample, 'drink_unit', toNutritionUnitCode)),
};

/**
 * The record with the older contract's shapes brought to the current one. Returns the input
 * itself when nothing needed changing (callers may compare by identity); never mutates it.
 */
export function upgradeRecord<T>(type: string, record: T): T {
  const upgrade = UPGRADES[type];
  if (!upgrade || !isObject(record)) return record;
  return upgrade(record) as T;
}

// The mapping table: every measurement Tributary exports as a FHIR Observation (or an Observation
// component), with its code and its UCUM unit. docs/fhir.md shows the same table to people, and a
// unit test keeps the two in step. LOINC where LOINC has a code for the measurement as wearables
// take it; otherwise a code of Tributary's own system (TRIBUTARY_CODE_SYSTEM), documented in
// docs/fhir.md: a LOINC code that only approximates the measurement would mislead a clinical reader.
import { type Coding, LOINC_SYSTEM, OBSERVATION_CATEGORY_SYSTEM, UCUM_SYSTEM } from '../../model/fhir.ts';

/** Tributary's code system for measurements LOINC does not name (docs/fhir.md#tributary-codes). */
export const TRIBUTARY_CODE_SYSTEM = 'urn:tributary:fhir:wearable-codes';

/** The R4 observation-category codes used (http://hl7.org/fhir/R4/codesystem-observation-category.html). */
export type Category = 'vital-signs' | 'activity' | 'laboratory';

export interface Metric {
  system: 'loinc' | 'tributary';
  code: string;
  display: string;
  /** UCUM code (https://ucum.org/ucum) and its human form; null for coded or dated values. */
  ucum: string | null;
  unit: string | null;
  category: Category | null;
  /** Extra codings (e.g. SpO2's second LOINC code the vital-signs profile asks for). */
  also?: readonly Coding[];
}

const loinc = (
  code: string,
  display: string,
  ucum: string | null,
  unit: string | null,
  category: Category | null,
) => ({ system: 'loinc', code, display, ucum, unit, category }) as const satisfies Metric;
const own = (
  code: string,
  display: string,
  ucum: string | null,
  unit: string | null,
  category: Category | null,
) => ({ system: 'tributary', code, display, ucum, unit, category }) as const satisfies Metric;

export const METRICS = {
  // Daily activity (`daily` records).
  steps_day: loinc('41950-7', 'Number of steps in 24 hour Measured', '/d', 'steps/day', 'activity'),
  distance_day: loinc('41953-1', 'Walking distance 24 hour Calculated', 'm', 'm', 'activity'),
  energy_day: loinc('41979-6', 'Calories burned in 24 hour Calculated', 'kcal', 'kcal', 'activity'),
  active_energy: loinc('41981-2', 'Calories burned', 'kcal', 'kcal', 'activity'),
  floors_day: own('floors-climbed', 'Floors climbed', '{floors}', 'floors', 'activity'),
  // Heart (daily, sleep and body records).
  heart_rate: loinc('8867-4', 'Heart rate', '/min', 'beats/minute', 'vital-signs'),
  heart_rate_resting: loinc('40443-4', 'Heart rate --resting', '/min', 'beats/minute', 'vital-signs'),
  heart_rate_mean: own(
    'heart-rate-mean',
    'Heart rate, mean over the period',
    '/min',
    'beats/minute',
    'vital-signs',
  ),
  heart_rate_min: own(
    'heart-rate-min',
    'Heart rate, minimum over the period',
    '/min',
    'beats/minute',
    'vital-signs',
  ),
  heart_rate_max: own(
    'heart-rate-max',
    'Heart rate, maximum over the period',
    '/min',
    'beats/minute',
    'vital-signs',
  ),
  hrv_sdnn: loinc(
    '80404-7',
    'R-R interval.standard deviation (Heart rate variability)',
    'ms',
    'ms',
    'vital-signs',
  ),
  hrv_rmssd: own('hrv-rmssd', 'Heart rate variability, RMSSD', 'ms', 'ms', 'vital-signs'),
  // Oxygen, breathing, temperature.
  spo2: {
    ...loinc('59408-5', 'Oxygen saturation in Arterial blood by Pulse oximetry', '%', '%', 'vital-signs'),
    also: [{ system: LOINC_SYSTEM, code: '2708-6', display: 'Oxygen saturation in Arterial blood' }],
  },
  respiratory_rate: loinc('9279-1', 'Respiratory rate', '/min', 'breaths/minute', 'vital-signs'),
  body_temperature: loinc('8310-5', 'Body temperature', 'Cel', '°C', 'vital-signs'),
  skin_temperature_delta: own(
    'skin-temperature-deviation',
    'Skin temperature deviation from the personal baseline during sleep',
    'K',
    '°C (difference)',
    'vital-signs',
  ),
  // Body composition (`body` records).
  body_weight: loinc('29463-7', 'Body weight', 'kg', 'kg', 'vital-signs'),
  body_height: loinc('8302-2', 'Body height', 'cm', 'cm', 'vital-signs'),
  bmi: loinc('39156-5', 'Body mass index (BMI) [Ratio]', 'kg/m2', 'kg/m2', 'vital-signs'),
  body_fat: loinc('41982-0', 'Percentage of body fat Measured', '%', '%', 'vital-signs'),
  blood_pressure: loinc(
    '85354-9',
    'Blood pressure panel with all children optional',
    null,
    null,
    'vital-signs',
  ),
  systolic: loinc('8480-6', 'Systolic blood pressure', 'mm[Hg]', 'mmHg', 'vital-signs'),
  diastolic: loinc('8462-4', 'Diastolic blood pressure', 'mm[Hg]', 'mmHg', 'vital-signs'),
  glucose: loinc('2339-0', 'Glucose [Mass/volume] in Blood', 'mg/dL', 'mg/dL', 'laboratory'),
  // Sleep (`sleep` records): one Observation per session, stages as components.
  sleep_session: own('sleep-session', 'Sleep session', null, null, 'activity'),
  sleep_asleep: own('sleep-duration-asleep', 'Time asleep', 's', 's', null),
  sleep_in_bed: own('sleep-duration-in-bed', 'Time in bed', 's', 's', null),
  sleep_light: own('sleep-duration-light', 'Time in light sleep', 's', 's', null),
  sleep_deep: own('sleep-duration-deep', 'Time in deep sleep', 's', 's', null),
  sleep_rem: own('sleep-duration-rem', 'Time in REM sleep', 's', 's', null),
  sleep_awake: own('sleep-duration-awake', 'Time awake during the session', 's', 's', null),
  sleep_efficiency: own('sleep-efficiency', 'Sleep efficiency', '%', '%', null),
  // Workouts (`activity` records): one Observation per workout, its measures as components.
  workout: loinc('73985-4', 'Exercise activity', null, null, 'activity'),
  exercise_duration: loinc('55411-3', 'Exercise duration', 'min', 'min', null),
  workout_distance: own('workout-distance', 'Distance covered in the workout', 'm', 'm', null),
  workout_steps: loinc('55423-8', 'Number of steps', '{steps}', 'steps', null),
  // Nutrition (`nutrition` records): the day's intake.
  energy_intake: loinc('9052-2', 'Calorie intake total 24 hour', 'kcal', 'kcal', null),
  nutrition_day: own('nutrition-day', 'Food and drink intake of the day', null, null, null),
  protein: own('nutrition-protein', 'Protein intake', 'g', 'g', null),
  carbohydrates: own('nutrition-carbohydrates', 'Carbohydrate intake', 'g', 'g', null),
  fat: own('nutrition-fat', 'Fat intake', 'g', 'g', null),
  fiber: own('nutrition-fiber', 'Fiber intake', 'g', 'g', null),
  sugar: own('nutrition-sugar', 'Sugar intake', 'g', 'g', null),
  sodium: own('nutrition-sodium', 'Sodium intake', 'mg', 'mg', null),
  water: own('nutrition-water', 'Water intake', 'mL', 'mL', null),
  // Menstruation (`menstruation` records).
  period_start: loinc('8665-2', 'Last menstrual period start date', null, null, null),
  cycle_day: own(
    'menstrual-cycle-day',
    'Day of the menstrual cycle (1 on the first day of the period)',
    'd',
    'day',
    null,
  ),
  cycle_length: own('menstrual-cycle-length', 'Menstrual cycle length', 'd', 'days', null),
  menstrual_flow: own('menstrual-flow', 'Menstrual flow', null, null, null),
  // Urine hormone tests (`hormone` records).
  lh_urine: own('urine-lh', 'Luteinizing hormone in urine (home test)', 'm[IU]/mL', 'mIU/mL', 'laboratory'),
  e3g_urine: own('urine-e3g', 'Estrone-3-glucuronide in urine (home test)', 'ng/mL', 'ng/mL', 'laboratory'),
  pdg_urine: own(
    'urine-pdg',
    'Pregnanediol glucuronide in urine (home test)',
    'ug/mL',
    'µg/mL',
    'laboratory',
  ),
  hcg_urine: own('urine-hcg', 'Choriogonadotropin in urine (home test)', 'm[IU]/mL', 'mIU/mL', 'laboratory'),
  fsh_urine: own('urine-fsh', 'Follitropin in urine (home test)', 'm[IU]/mL', 'mIU/mL', 'laboratory'),
} as const satisfies Record<string, Metric>;

export type MetricName = keyof typeof METRICS;

export const systemUrl = (metric: Metric) =>
  metric.system === 'loinc' ? LOINC_SYSTEM : TRIBUTARY_CODE_SYSTEM;

/** The CodeableConcept of a metric: its coding (and any extra codings), and its display as text. */
export function conceptOf(metric: Metric) {
  return {
    coding: [
      { system: systemUrl(metric), code: metric.code, display: metric.display },
      ...(metric.also ?? []),
    ],
    text: metric.display,
  };
}

/** A UCUM Quantity in a metric's unit. */
export function quantityOf(metric: Metric, value: number) {
  if (metric.ucum === null || metric.unit === null) throw new Error(`metric ${metric.code} has no unit`);
  return { value, unit: metric.unit, system: UCUM_SYSTEM, code: metric.ucum };
}

const CATEGORY_DISPLAY: Record<Category, string> = {
  'vital-signs': 'Vital Signs',
  activity: 'Activity',
  laboratory: 'Laboratory',
};

/** The category CodeableConcept of each category code. */
export const OBSERVATION_CATEGORY: Record<Category, { coding: Coding[] }> = Object.fromEntries(
  (Object.keys(CATEGORY_DISPLAY) as Category[]).map((code) => [
    code,
    { coding: [{ system: OBSERVATION_CATEGORY_SYSTEM, code, display: CATEGORY_DISPLAY[code] }] },
  ]),
) as Record<Category, { coding: Coding[] }>;

// Where an adult's reference interval usually lies, per test and per unit it is printed in: the
// textbook adult intervals of clinical chemistry and haematology, rounded. Not for judging a result
// (the printed range does that): only to tell which scale a range read by OCR is on. A range read
// `39-55` for glucose in mmol/L is ten times any glucose interval, and `3.9-5.5` is one; `120-220`
// for free T4 in pmol/L is ten times `12-22`. Labs differ by a little, never by a factor of ten.

/** [lower, upper] of a typical interval; a one-sided interval (`<5.2`, `>59`) gives 0 or undefined. */
type Interval = readonly [lower: number, upper: number | undefined];

/** By dictionary key, then UCUM unit. Counts per 10³/µL and per 10⁹/L are the same numbers. */
const TYPICAL: Record<string, Record<string, Interval>> = {
  glucose: { 'mg/dL': [70, 99], 'mmol/L': [3.9, 5.5] },
  glucose_fasting: { 'mg/dL': [70, 99], 'mmol/L': [3.9, 5.5] },
  bun: { 'mg/dL': [6, 20], 'mmol/L': [2.5, 7.1] },
  urea: { 'mmol/L': [2.5, 7.8] },
  creatinine: { 'mg/dL': [0.6, 1.2], 'umol/L': [50, 110] },
  sodium: { 'mmol/L': [135, 145], 'meq/L': [135, 145] },
  potassium: { 'mmol/L': [3.5, 5.2], 'meq/L': [3.5, 5.2] },
  chloride: { 'mmol/L': [96, 106], 'meq/L': [96, 106] },
  carbon_dioxide: { 'mmol/L': [20, 29], 'meq/L': [20, 29] },
  calcium: { 'mg/dL': [8.6, 10.2], 'mmol/L': [2.15, 2.6] },
  total_protein: { 'g/dL': [6, 8.5], 'g/L': [60, 83] },
  albumin: { 'g/dL': [3.5, 5.2], 'g/L': [35, 52] },
  bilirubin_total: { 'mg/dL': [0, 1.2], 'umol/L': [0, 21] },
  alkaline_phosphatase: { 'U/L': [40, 130] },
  ast: { 'U/L': [0, 40] },
  alt: { 'U/L': [0, 45] },
  cholesterol_total: { 'mg/dL': [100, 199], 'mmol/L': [0, 5.2] },
  triglycerides: { 'mg/dL': [0, 149], 'mmol/L': [0, 1.7] },
  hdl: { 'mg/dL': [40, undefined], 'mmol/L': [1, undefined] },
  ldl: { 'mg/dL': [0, 99], 'mmol/L': [0, 2.6] },
  wbc: { '10*3/uL': [4, 11], '10*9/L': [4, 11] },
  rbc: { '10*6/uL': [4, 5.8], '10*12/L': [4, 5.8] },
  hemoglobin: { 'g/dL': [12, 17.5], 'g/L': [120, 175] },
  hematocrit: { '%': [36, 52], 'L/L': [0.36, 0.52] },
  mcv: { fL: [80, 100] },
  mch: { pg: [27, 33] },
  mchc: { 'g/dL': [32, 36], 'g/L': [320, 360] },
  platelets: { '10*3/uL': [150, 450], '10*9/L': [150, 450] },
  neutrophils: { '10*3/uL': [1.5, 7.5], '10*9/L': [1.5, 7.5] },
  lymphocytes: { '10*3/uL': [1, 4], '10*9/L': [1, 4] },
  monocytes: { '10*3/uL': [0.2, 1], '10*9/L': [0.2, 1] },
  tsh: { 'm[IU]/L': [0.4, 4.5], 'u[IU]/mL': [0.4, 4.5] },
  free_t4: { 'ng/dL': [0.8, 1.8], 'pmol/L': [12, 22] },
  hba1c: { '%': [4, 5.6], 'mmol/mol': [20, 38] },
  vitamin_d: { 'ng/mL': [30, 100], 'nmol/L': [75, 250] },
  ferritin: { 'ng/mL': [15, 300], 'ug/L': [15, 300] },
  vitamin_b12: { 'pg/mL': [200, 900], 'pmol/L': [150, 660] },
  iron: { 'ug/dL': [50, 170], 'umol/L': [9, 30] },
};

/** How far a lab's interval may sit from the typical one and still be on its scale. */
const SAME_SCALE = 3;

const onScale = (printed: number, typical: number) =>
  printed <= typical * SAME_SCALE && printed >= typical / SAME_SCALE;

/**
 * Whether a printed interval is on the scale of the test's typical interval in one of `units` (or
 * in any unit the test is printed in, when the unit was not read): its upper end compared with
 * the typical upper end, or its lower with the lower when one of them is missing or zero.
 * Undefined when the test has no typical interval here.
 */
export function onTypicalScale(
  key: string,
  lower: number | undefined,
  upper: number | undefined,
  ucum: string | undefined,
): boolean | undefined {
  const byUnit = TYPICAL[key];
  if (!byUnit) return undefined;
  const intervals = ucum ? (byUnit[ucum] ? [byUnit[ucum]] : []) : Object.values(byUnit);
  if (intervals.length === 0) return undefined;
  return intervals.some(([typicalLower, typicalUpper]) => {
    if (upper !== undefined && upper > 0 && typicalUpper !== undefined) return onScale(upper, typicalUpper);
    if (lower !== undefined && lower > 0 && typicalLower > 0) return onScale(lower, typicalLower);
    // Nothing comparable (`0-40` against `>59`): not a reason to rescale.
    return true;
  });
}

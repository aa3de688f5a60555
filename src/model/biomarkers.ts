// The biomarker dictionary: the common laboratory tests with their names as labs print them
// (synonyms, abbreviations), LOINC codes, the UCUM unit of the conventional (US) form, and the
// other units they are reported in with the factor between them (SI forms have their own LOINC
// code where LOINC distinguishes mass from substance concentration). The one dictionary of the
// service: the lab-report reader (features/lab-reports/dictionary: matching in match.ts,
// conversion in convert.ts) and the order API (features/orders/domain/biomarkers.ts: what its
// sandbox reports) both read these entries, so a LOINC code is declared here and nowhere else.

export type PanelKey =
  | 'metabolic'
  | 'lipid'
  | 'cbc'
  | 'thyroid'
  | 'liver'
  | 'kidney'
  | 'iron'
  | 'vitamins'
  | 'minerals'
  | 'hormones'
  | 'diabetes'
  | 'inflammation'
  | 'coagulation'
  | 'cardiac'
  | 'pancreas'
  | 'tumor_markers'
  | 'immunology'
  | 'urinalysis';

/**
 * A unit the biomarker is also reported in: value in `ucum` = (value in the main unit − `offset`) ×
 * `factor` (the offset is for the few non-proportional scales, e.g. HbA1c % → IFCC mmol/mol).
 */
export type AlternateUnit = { ucum: string; factor: number; offset?: number; loinc?: string };

export type BiomarkerEntry = {
  key: string;
  name: string;
  loinc?: string;
  /** UCUM code of the conventional unit; absent for qualitative tests and ratios without one. */
  ucum?: string;
  panel: PanelKey;
  synonyms: readonly string[];
  alternates?: readonly AlternateUnit[];
  specimen?: 'blood' | 'urine';
  /** The same test counted the other way (percentage ↔ absolute count), chosen by the printed unit. */
  percentOf?: string;
};

export const PANEL_NAMES: Record<PanelKey, string> = {
  metabolic: 'Metabolic panel',
  lipid: 'Lipid panel',
  cbc: 'Complete blood count',
  thyroid: 'Thyroid',
  liver: 'Liver function',
  kidney: 'Kidney function',
  iron: 'Iron studies',
  vitamins: 'Vitamins',
  minerals: 'Minerals',
  hormones: 'Hormones',
  diabetes: 'Diabetes',
  inflammation: 'Inflammation',
  coagulation: 'Coagulation',
  cardiac: 'Cardiac',
  pancreas: 'Pancreas',
  tumor_markers: 'Tumor markers',
  immunology: 'Immunology',
  urinalysis: 'Urinalysis',
};

const e = (
  key: string,
  name: string,
  loinc: string | undefined,
  ucum: string | undefined,
  panel: PanelKey,
  synonyms: readonly string[],
  extra: Partial<Pick<BiomarkerEntry, 'alternates' | 'specimen' | 'percentOf'>> = {},
): BiomarkerEntry => ({
  key,
  name,
  ...(loinc ? { loinc } : {}),
  ...(ucum ? { ucum } : {}),
  panel,
  synonyms,
  ...extra,
});

// Factors: mg/dL → mmol/L is 10 / molar mass (g/mol); written out per analyte. Every LOINC code
// passes LOINC's mod-10 check digit (test/unit/lab-report-parsing.test.ts); where a code could not
// be confirmed it is left out (the result then carries no loinc_code) rather than guessed.
export const BIOMARKERS: readonly BiomarkerEntry[] = [
  // Metabolic panel (electrolytes, glucose, calcium, proteins)
  e(
    'glucose',
    'Glucose',
    '2345-7',
    'mg/dL',
    'metabolic',
    [
      'glucose serum',
      'glucose plasma',
      'blood glucose',
      'glu',
      'glucose random',
      'serum glucose',
      'plasma glucose',
    ],
    {
      alternates: [{ ucum: 'mmol/L', factor: 0.0555, loinc: '14749-6' }],
    },
  ),
  e(
    'glucose_fasting',
    'Glucose, fasting',
    '1558-6',
    'mg/dL',
    'diabetes',
    ['fasting glucose', 'glucose fasting', 'fasting blood glucose', 'fbg', 'fpg', 'fasting plasma glucose'],
    {
      alternates: [{ ucum: 'mmol/L', factor: 0.0555, loinc: '14771-0' }],
    },
  ),
  e('sodium', 'Sodium', '2951-2', 'mmol/L', 'metabolic', ['na', 'sodium serum', 'na+'], {
    alternates: [{ ucum: 'meq/L', factor: 1 }],
  }),
  e('potassium', 'Potassium', '2823-3', 'mmol/L', 'metabolic', ['k', 'potassium serum', 'k+'], {
    alternates: [{ ucum: 'meq/L', factor: 1 }],
  }),
  e('chloride', 'Chloride', '2075-0', 'mmol/L', 'metabolic', ['cl', 'chloride serum', 'cl-'], {
    alternates: [{ ucum: 'meq/L', factor: 1 }],
  }),
  e(
    'carbon_dioxide',
    'Carbon dioxide, total',
    '2028-9',
    'mmol/L',
    'metabolic',
    ['co2', 'carbon dioxide', 'bicarbonate', 'hco3', 'total co2', 'tco2', 'carbon dioxide total'],
    {
      alternates: [{ ucum: 'meq/L', factor: 1 }],
    },
  ),
  e('anion_gap', 'Anion gap', '33037-3', 'mmol/L', 'metabolic', ['anion gap', 'agap'], {
    alternates: [{ ucum: 'meq/L', factor: 1 }],
  }),
  e(
    'calcium',
    'Calcium',
    '17861-6',
    'mg/dL',
    'metabolic',
    ['ca', 'calcium serum', 'calcium total', 'total calcium'],
    {
      alternates: [{ ucum: 'mmol/L', factor: 0.2495, loinc: '2000-8' }],
    },
  ),
  e('calcium_ionized', 'Calcium, ionized', '1994-3', 'mmol/L', 'metabolic', [
    'ionized calcium',
    'calcium ionized',
    'ica',
    'free calcium',
  ]),
  e(
    'total_protein',
    'Protein, total',
    '2885-2',
    'g/dL',
    'metabolic',
    ['total protein', 'protein total', 'tp', 'protein serum'],
    {
      alternates: [{ ucum: 'g/L', factor: 10 }],
    },
  ),
  e('albumin', 'Albumin', '1751-7', 'g/dL', 'metabolic', ['alb', 'albumin serum'], {
    alternates: [{ ucum: 'g/L', factor: 10 }],
  }),
  e('globulin', 'Globulin', '10834-0', 'g/dL', 'metabolic', ['globulin total', 'total globulin', 'glob'], {
    alternates: [{ ucum: 'g/L', factor: 10 }],
  }),
  e('albumin_globulin_ratio', 'Albumin/globulin ratio', '1759-0', '{ratio}', 'metabolic', [
    'a/g ratio',
    // "A/G Ratio" with "Ratio" read as the unit (LabCorp CMP-14 prints "A/G Ratio").
    'a/g',
    'albumin/globulin ratio',
    'ag ratio',
    'albumin globulin ratio',
  ]),
  e('osmolality', 'Osmolality', '2692-2', 'mosm/kg', 'metabolic', ['osmolality serum', 'serum osmolality']),
  e('lactate', 'Lactate', '2524-7', 'mmol/L', 'metabolic', ['lactic acid', 'lactate plasma']),
  // Kidney
  e(
    'bun',
    'Urea nitrogen (BUN)',
    '3094-0',
    'mg/dL',
    'kidney',
    ['bun', 'urea nitrogen', 'blood urea nitrogen', 'urea nitrogen bun', 'bun serum'],
    {
      alternates: [{ ucum: 'mmol/L', factor: 0.357, loinc: '22664-7' }],
    },
  ),
  e('urea', 'Urea', '22664-7', 'mmol/L', 'kidney', ['urea', 'serum urea']),
  e(
    'creatinine',
    'Creatinine',
    '2160-0',
    'mg/dL',
    'kidney',
    ['creat', 'creatinine serum', 'cre', 'serum creatinine'],
    {
      alternates: [{ ucum: 'umol/L', factor: 88.42, loinc: '14682-9' }],
    },
  ),
  e('egfr', 'eGFR', '98979-8', 'mL/min/{1.73_m2}', 'kidney', [
    'egfr',
    'estimated gfr',
    'egfr ckd-epi',
    'gfr estimated',
    'egfr non-afr american',
    'egfr if nonafricn am',
    'estimated glomerular filtration rate',
    'egfr (ckd-epi 2021)',
    // Printed variants of the creatinine-based CKD-EPI 2021 estimate (LOINC 98979-8): LabCorp's
    // test menu (322000, CMP-14) prints "eGFR"; Quest and hospital reports print "eGFR CKD-EPI Cr
    // 2021", "eGFRcr", "eGFR Creatinine (CKD-EPI 2021)".
    'egfr cr',
    'egfrcr',
    'egfr creatinine',
    'egfr ckd-epi cr 2021',
    'egfr creatinine ckd-epi 2021',
    'egfr creatinine-based',
    'est gfr',
  ]),
  // Creatinine and cystatin C, CKD-EPI 2021: LOINC 98980-6 ("Glomerular filtration rate/1.73 sq
  // M.predicted … by Creatinine and Cystatin C-based formula (CKD-EPI 2021)", as cited by HL7
  // Switzerland's CH LAB-Report guide); LabCorp 121022 prints "eGFR Creatinine-Cystatin C".
  // Its own entry, so the name is never read as the creatinine-only eGFR or as cystatin C.
  e('egfr_cr_cys', 'eGFR (creatinine-cystatin C)', '98980-6', 'mL/min/{1.73_m2}', 'kidney', [
    'egfr creatinine-cystatin c',
    'egfr cr-cys',
    'egfrcr-cys',
    'egfr creat-cys',
    'egfr creatinine-cystatin c calculation',
    'egfr ckd-epi cr-cys 2021',
  ]),
  // Cystatin C alone and the retired race-based estimates: different values from the 2021
  // creatinine eGFR, so their own entries (LOINC codes left out: not confirmed here), never the
  // eGFR above and never cystatin C itself.
  e('egfr_cys', 'eGFR (cystatin C)', undefined, 'mL/min/{1.73_m2}', 'kidney', [
    'egfr cystatin c',
    'egfrcys',
    'egfr cys',
    'egfr cystatin c-based',
  ]),
  e('egfr_african_american', 'eGFR (African American, race-based)', undefined, 'mL/min/{1.73_m2}', 'kidney', [
    'egfr if africn am',
    'egfr african american',
    'egfr if african american',
    'egfr afr american',
    'egfr african am',
  ]),
  // Older creatinine equations still printed by some labs, each its own estimate (values differ
  // from CKD-EPI 2021): LOINC 33914-3 "Glomerular filtration rate/1.73 sq M.predicted … by
  // Creatinine-based formula (MDRD)" and 62238-1 "… by Creatinine-based formula (CKD-EPI)"
  // (the 2009 equation), both from LOINC's own table (loinc.org).
  e('egfr_mdrd', 'eGFR (MDRD)', '33914-3', 'mL/min/{1.73_m2}', 'kidney', [
    'egfr mdrd',
    'mdrd egfr',
    'egfr (mdrd)',
    'gfr mdrd',
    'estimated gfr mdrd',
    'egfr mdrd non-african american',
  ]),
  e('egfr_ckd_epi_2009', 'eGFR (CKD-EPI 2009)', '62238-1', 'mL/min/{1.73_m2}', 'kidney', [
    'egfr ckd-epi 2009',
    'egfr (ckd-epi 2009)',
    'ckd-epi 2009 egfr',
  ]),
  // LOINC 3097-3 (Urea nitrogen/Creatinine [Mass Ratio] in Serum or Plasma). LabCorp's CMP
  // prints "BUN/Creatinine Ratio"; Quest prints "BUN/CREATININE RATIO"; with "Ratio" read as
  // the unit the name is "BUN/Creatinine" alone.
  e('bun_creatinine_ratio', 'BUN/creatinine ratio', '3097-3', '{ratio}', 'kidney', [
    'bun/creatinine ratio',
    'bun/creat ratio',
    'bun creatinine ratio',
    'bun/creatinine',
    'bun/creat',
    'urea nitrogen/creatinine ratio',
    'urea nitrogen/creatinine',
  ]),
  e('uric_acid', 'Uric acid', '3084-1', 'mg/dL', 'kidney', ['urate', 'uric acid serum'], {
    alternates: [{ ucum: 'umol/L', factor: 59.48, loinc: '14933-6' }],
  }),
  e('cystatin_c', 'Cystatin C', '33863-2', 'mg/L', 'kidney', ['cystatin c', 'cystatin-c']),
  e(
    'phosphorus',
    'Phosphorus',
    '2777-1',
    'mg/dL',
    'minerals',
    ['phosphate', 'phos', 'inorganic phosphorus', 'phosphorus serum'],
    {
      alternates: [{ ucum: 'mmol/L', factor: 0.3229, loinc: '14879-1' }],
    },
  ),
  e('magnesium', 'Magnesium', '19123-9', 'mg/dL', 'minerals', ['mg', 'magnesium serum'], {
    alternates: [{ ucum: 'mmol/L', factor: 0.4114, loinc: '2601-3' }],
  }),
  e(
    'microalbumin_urine',
    'Albumin, urine',
    '14957-5',
    'mg/L',
    'kidney',
    ['microalbumin', 'urine microalbumin', 'microalbumin urine', 'urine albumin'],
    { specimen: 'urine' },
  ),
  e(
    'albumin_creatinine_ratio',
    'Albumin/creatinine ratio, urine',
    '9318-7',
    'mg/g',
    'kidney',
    [
      'albumin/creatinine ratio',
      'uacr',
      'acr',
      'microalbumin/creatinine ratio',
      'urine albumin/creatinine ratio',
    ],
    {
      specimen: 'urine',
      alternates: [{ ucum: 'mg/mmol', factor: 0.113 }],
    },
  ),
  e(
    'creatinine_urine',
    'Creatinine, urine',
    '2161-8',
    'mg/dL',
    'kidney',
    ['urine creatinine', 'creatinine urine'],
    { specimen: 'urine' },
  ),
  // Liver
  e('alt', 'ALT', '1742-6', 'U/L', 'liver', [
    'alt',
    'alanine aminotransferase',
    'sgpt',
    'alt (sgpt)',
    'alanine transaminase',
    'gpt',
  ]),
  e('ast', 'AST', '1920-8', 'U/L', 'liver', [
    'ast',
    'aspartate aminotransferase',
    'sgot',
    'ast (sgot)',
    'aspartate transaminase',
    'got',
  ]),
  e('alkaline_phosphatase', 'Alkaline phosphatase', '6768-6', 'U/L', 'liver', [
    'alp',
    'alk phos',
    'alkaline phosphatase',
    'alk phosphatase',
  ]),
  e('ggt', 'GGT', '2324-2', 'U/L', 'liver', [
    'ggt',
    'gamma-glutamyl transferase',
    'gamma gt',
    'ggtp',
    'gamma glutamyl transferase',
  ]),
  e(
    'bilirubin_total',
    'Bilirubin, total',
    '1975-2',
    'mg/dL',
    'liver',
    ['total bilirubin', 'bilirubin total', 'tbil', 't bili', 'bilirubin'],
    {
      alternates: [{ ucum: 'umol/L', factor: 17.1, loinc: '14631-6' }],
    },
  ),
  e(
    'bilirubin_direct',
    'Bilirubin, direct',
    '1968-7',
    'mg/dL',
    'liver',
    ['direct bilirubin', 'bilirubin direct', 'conjugated bilirubin', 'dbil'],
    {
      alternates: [{ ucum: 'umol/L', factor: 17.1, loinc: '14629-0' }],
    },
  ),
  e(
    'bilirubin_indirect',
    'Bilirubin, indirect',
    '1971-1',
    'mg/dL',
    'liver',
    ['indirect bilirubin', 'bilirubin indirect', 'unconjugated bilirubin'],
    {
      alternates: [{ ucum: 'umol/L', factor: 17.1 }],
    },
  ),
  e('ldh', 'Lactate dehydrogenase', '2532-0', 'U/L', 'liver', [
    'ldh',
    'ld',
    'lactate dehydrogenase',
    'lactic dehydrogenase',
  ]),
  e('ammonia', 'Ammonia', '16362-6', 'umol/L', 'liver', ['ammonia plasma', 'nh3']),
  // Lipids
  e(
    'cholesterol_total',
    'Cholesterol, total',
    '2093-3',
    'mg/dL',
    'lipid',
    ['total cholesterol', 'cholesterol total', 'cholesterol', 'chol', 'tc'],
    {
      alternates: [{ ucum: 'mmol/L', factor: 0.02586, loinc: '14647-2' }],
    },
  ),
  e(
    'hdl',
    'HDL cholesterol',
    '2085-9',
    'mg/dL',
    'lipid',
    ['hdl', 'hdl cholesterol', 'hdl-c', 'hdl chol', 'cholesterol hdl', 'high density lipoprotein'],
    {
      alternates: [{ ucum: 'mmol/L', factor: 0.02586, loinc: '14646-4' }],
    },
  ),
  e(
    'ldl',
    'LDL cholesterol (calculated)',
    '13457-7',
    'mg/dL',
    'lipid',
    [
      'ldl',
      'ldl cholesterol',
      'ldl-c',
      'ldl chol calc',
      'ldl cholesterol calc',
      'ldl calculated',
      'cholesterol ldl',
      'ldl chol calc (nih)',
      'low density lipoprotein',
      // Calculated LDL as labs print it (LOINC 13457-7, Cholesterol in LDL by calculation):
      // LabCorp "LDL Chol Calc (NIH)" (NIH/Sampson equation), Quest "LDL-CHOLESTEROL" (Martin-
      // Hopkins calculation), "LDL Cholesterol (Calc)" on hospital reports.
      'ldl-cholesterol',
      'ldl cholesterol nih',
      'ldl-c nih',
      'ldl cholesterol martin-hopkins',
      'ldl-c martin-hopkins',
      'ldl chol',
    ],
    {
      alternates: [{ ucum: 'mmol/L', factor: 0.02586, loinc: '22748-8' }],
    },
  ),
  e(
    'ldl_direct',
    'LDL cholesterol (direct)',
    '18262-6',
    'mg/dL',
    'lipid',
    ['direct ldl', 'ldl direct', 'ldl cholesterol direct'],
    {
      alternates: [{ ucum: 'mmol/L', factor: 0.02586 }],
    },
  ),
  e('triglycerides', 'Triglycerides', '2571-8', 'mg/dL', 'lipid', ['trig', 'trigs', 'tg', 'triglyceride'], {
    alternates: [{ ucum: 'mmol/L', factor: 0.01129, loinc: '14927-8' }],
  }),
  e(
    'vldl',
    'VLDL cholesterol',
    '13458-5',
    'mg/dL',
    'lipid',
    ['vldl', 'vldl cholesterol', 'vldl cholesterol cal', 'vldl chol calc'],
    {
      alternates: [{ ucum: 'mmol/L', factor: 0.02586 }],
    },
  ),
  e(
    'non_hdl',
    'Non-HDL cholesterol',
    '43396-1',
    'mg/dL',
    'lipid',
    ['non-hdl cholesterol', 'non hdl cholesterol', 'non-hdl', 'non hdl chol'],
    {
      alternates: [{ ucum: 'mmol/L', factor: 0.02586 }],
    },
  ),
  // LOINC 11054-4 "Cholesterol in LDL/Cholesterol in HDL [Mass Ratio] in Serum or Plasma"
  // (loinc.org); printed "LDL/HDL Ratio" by Quest and hospital lipid panels.
  e('ldl_hdl_ratio', 'LDL/HDL ratio', '11054-4', '{ratio}', 'lipid', [
    'ldl/hdl ratio',
    'ldl/hdl',
    'ldl-c/hdl-c ratio',
    'ldl hdl ratio',
    'ldl/hdl risk ratio',
  ]),
  e('cholesterol_hdl_ratio', 'Cholesterol/HDL ratio', '9830-1', '{ratio}', 'lipid', [
    'chol/hdl ratio',
    'cholesterol/hdl ratio',
    'total cholesterol/hdl ratio',
    'tc/hdl ratio',
    't. chol/hdl ratio',
    // LOINC 9830-1 (Cholesterol.total/Cholesterol in HDL [Mass Ratio]); Quest's lipid panel
    // prints "CHOL/HDLC RATIO", LabCorp's "T. Chol/HDL Ratio".
    'chol/hdlc ratio',
    'chol/hdlc',
    'chol/hdl',
    'cholesterol/hdl',
    'total cholesterol/hdl',
    'chol/hdl-c ratio',
  ]),
  e(
    'apolipoprotein_b',
    'Apolipoprotein B',
    '1884-6',
    'mg/dL',
    'lipid',
    ['apo b', 'apob', 'apolipoprotein b'],
    { alternates: [{ ucum: 'g/L', factor: 0.01 }] },
  ),
  e(
    'apolipoprotein_a1',
    'Apolipoprotein A-1',
    '1869-7',
    'mg/dL',
    'lipid',
    ['apo a1', 'apoa1', 'apolipoprotein a1', 'apolipoprotein a-i'],
    { alternates: [{ ucum: 'g/L', factor: 0.01 }] },
  ),
  e('lipoprotein_a', 'Lipoprotein (a)', '10835-7', 'mg/dL', 'lipid', [
    'lp(a)',
    'lipoprotein(a)',
    'lipoprotein a',
    'lpa',
  ]),
  // Complete blood count
  e(
    'wbc',
    'White blood cells',
    '6690-2',
    '10*3/uL',
    'cbc',
    [
      'wbc',
      'white blood cell count',
      'white blood cells',
      'leukocytes',
      'white cell count',
      'wbc count',
      'total leukocyte count',
    ],
    {
      alternates: [{ ucum: '10*9/L', factor: 1 }],
    },
  ),
  e(
    'rbc',
    'Red blood cells',
    '789-8',
    '10*6/uL',
    'cbc',
    ['rbc', 'red blood cell count', 'red blood cells', 'erythrocytes', 'red cell count', 'rbc count'],
    {
      alternates: [{ ucum: '10*12/L', factor: 1 }],
    },
  ),
  e('hemoglobin', 'Hemoglobin', '718-7', 'g/dL', 'cbc', ['hgb', 'hb', 'haemoglobin', 'hemoglobin'], {
    alternates: [{ ucum: 'g/L', factor: 10 }],
  }),
  e('hematocrit', 'Hematocrit', '4544-3', '%', 'cbc', ['hct', 'haematocrit', 'packed cell volume', 'pcv'], {
    alternates: [{ ucum: 'L/L', factor: 0.01 }],
  }),
  e('mcv', 'MCV', '787-2', 'fL', 'cbc', ['mcv', 'mean corpuscular volume', 'mean cell volume']),
  e('mch', 'MCH', '785-6', 'pg', 'cbc', [
    'mch',
    'mean corpuscular hemoglobin',
    'mean cell hemoglobin',
    'mean cell haemoglobin',
  ]),
  e(
    'mchc',
    'MCHC',
    '786-4',
    'g/dL',
    'cbc',
    ['mchc', 'mean corpuscular hemoglobin concentration', 'mean cell hemoglobin concentration'],
    {
      alternates: [{ ucum: 'g/L', factor: 10 }],
    },
  ),
  e('rdw', 'RDW', '788-0', '%', 'cbc', [
    'rdw',
    'rdw-cv',
    'red cell distribution width',
    'red cell dist width',
  ]),
  e('rdw_sd', 'RDW-SD', '21000-5', 'fL', 'cbc', ['rdw-sd', 'rdw sd']),
  e(
    'platelets',
    'Platelets',
    '777-3',
    '10*3/uL',
    'cbc',
    ['plt', 'platelet count', 'platelets', 'thrombocytes'],
    { alternates: [{ ucum: '10*9/L', factor: 1 }] },
  ),
  e('mpv', 'MPV', '32623-1', 'fL', 'cbc', ['mpv', 'mean platelet volume']),
  e(
    'neutrophils',
    'Neutrophils',
    '751-8',
    '10*3/uL',
    'cbc',
    [
      'neutrophils absolute',
      'absolute neutrophils',
      'neutrophils (absolute)',
      'neutrophils abs',
      'anc',
      'neut #',
      'neutrophil count',
    ],
    {
      alternates: [{ ucum: '10*9/L', factor: 1 }],
      percentOf: 'neutrophils_percent',
    },
  ),
  e('neutrophils_percent', 'Neutrophils %', '770-8', '%', 'cbc', [
    'neutrophils',
    'neutrophils %',
    'neut %',
    'neutrophils percent',
    'polys',
    'segmented neutrophils',
  ]),
  e(
    'lymphocytes',
    'Lymphocytes',
    '731-0',
    '10*3/uL',
    'cbc',
    [
      'lymphocytes absolute',
      'absolute lymphocytes',
      'lymphs (absolute)',
      'lymphs abs',
      'lymphocytes (absolute)',
      'lymph #',
    ],
    {
      alternates: [{ ucum: '10*9/L', factor: 1 }],
      percentOf: 'lymphocytes_percent',
    },
  ),
  e('lymphocytes_percent', 'Lymphocytes %', '736-9', '%', 'cbc', [
    'lymphocytes',
    'lymphs',
    'lymphocytes %',
    'lymph %',
  ]),
  e(
    'monocytes',
    'Monocytes',
    '742-7',
    '10*3/uL',
    'cbc',
    ['monocytes absolute', 'absolute monocytes', 'monocytes (absolute)', 'monocytes abs', 'mono #'],
    {
      alternates: [{ ucum: '10*9/L', factor: 1 }],
      percentOf: 'monocytes_percent',
    },
  ),
  e('monocytes_percent', 'Monocytes %', '5905-5', '%', 'cbc', [
    'monocytes',
    'monos',
    'monocytes %',
    'mono %',
  ]),
  e(
    'eosinophils',
    'Eosinophils',
    '711-2',
    '10*3/uL',
    'cbc',
    ['eosinophils absolute', 'absolute eosinophils', 'eos (absolute)', 'eosinophils (absolute)', 'eos #'],
    {
      alternates: [{ ucum: '10*9/L', factor: 1 }],
      percentOf: 'eosinophils_percent',
    },
  ),
  e('eosinophils_percent', 'Eosinophils %', '713-8', '%', 'cbc', [
    'eosinophils',
    'eos',
    'eosinophils %',
    'eos %',
  ]),
  e(
    'basophils',
    'Basophils',
    '704-7',
    '10*3/uL',
    'cbc',
    ['basophils absolute', 'absolute basophils', 'baso (absolute)', 'basophils (absolute)', 'baso #'],
    {
      alternates: [{ ucum: '10*9/L', factor: 1 }],
      percentOf: 'basophils_percent',
    },
  ),
  e('basophils_percent', 'Basophils %', '706-2', '%', 'cbc', ['basophils', 'basos', 'basophils %', 'baso %']),
  e('immature_granulocytes_percent', 'Immature granulocytes %', '71695-1', '%', 'cbc', [
    'immature granulocytes',
    'immature grans',
    'ig %',
    'immature granulocytes %',
  ]),
  e('nrbc', 'Nucleated RBC', '58413-6', '/100{WBCs}', 'cbc', [
    'nrbc',
    'nucleated rbc',
    'nucleated red blood cells',
  ]),
  e('reticulocytes', 'Reticulocytes', '17849-1', '%', 'cbc', [
    'reticulocyte count',
    'retic count',
    'reticulocytes',
    'retic %',
  ]),
  e('esr', 'Erythrocyte sedimentation rate', '4537-7', 'mm/h', 'inflammation', [
    'esr',
    'sed rate',
    'sedimentation rate',
    'sed rate by modified westergren',
    'erythrocyte sedimentation rate',
  ]),
  // Coagulation
  e('pt', 'Prothrombin time', '5902-2', 's', 'coagulation', ['pt', 'prothrombin time', 'protime']),
  e('inr', 'INR', '6301-6', '{INR}', 'coagulation', ['inr', 'international normalized ratio', 'pt inr']),
  e('aptt', 'aPTT', '3173-2', 's', 'coagulation', [
    'aptt',
    'ptt',
    'partial thromboplastin time',
    'activated partial thromboplastin time',
  ]),
  e('fibrinogen', 'Fibrinogen', '3255-7', 'mg/dL', 'coagulation', ['fibrinogen activity', 'fibrinogen'], {
    alternates: [{ ucum: 'g/L', factor: 0.01 }],
  }),
  e('d_dimer', 'D-dimer', '48065-7', 'ng/mL', 'coagulation', ['d-dimer', 'd dimer', 'ddimer']),
  // Thyroid
  e(
    'tsh',
    'TSH',
    '3016-3',
    'm[IU]/L',
    'thyroid',
    ['tsh', 'thyroid stimulating hormone', 'thyrotropin', 'tsh 3rd generation', 'tsh, 3rd generation'],
    {
      alternates: [{ ucum: 'u[IU]/mL', factor: 1 }],
    },
  ),
  e(
    'free_t4',
    'Free T4',
    '3024-7',
    'ng/dL',
    'thyroid',
    ['free t4', 't4 free', 'ft4', 'free thyroxine', 't4, free (direct)', 'thyroxine free'],
    {
      alternates: [{ ucum: 'pmol/L', factor: 12.87, loinc: '14920-3' }],
    },
  ),
  e(
    'free_t3',
    'Free T3',
    '3051-0',
    'pg/mL',
    'thyroid',
    ['free t3', 't3 free', 'ft3', 'free triiodothyronine', 'triiodothyronine free'],
    {
      alternates: [{ ucum: 'pmol/L', factor: 1.536, loinc: '14928-6' }],
    },
  ),
  e(
    'total_t4',
    'Thyroxine (T4), total',
    '3026-2',
    'ug/dL',
    'thyroid',
    ['t4', 't4 total', 'total t4', 'thyroxine', 'thyroxine total'],
    {
      alternates: [{ ucum: 'nmol/L', factor: 12.87 }],
    },
  ),
  e(
    'total_t3',
    'Triiodothyronine (T3), total',
    '3053-6',
    'ng/dL',
    'thyroid',
    ['t3', 't3 total', 'total t3', 'triiodothyronine', 'triiodothyronine total'],
    {
      alternates: [{ ucum: 'nmol/L', factor: 0.01536 }],
    },
  ),
  e('reverse_t3', 'Reverse T3', '3052-8', 'ng/dL', 'thyroid', ['reverse t3', 'rt3', 't3 reverse']),
  e('t3_uptake', 'T3 uptake', '3050-2', '%', 'thyroid', ['t3 uptake', 't3u', 't3 resin uptake']),
  e('free_thyroxine_index', 'Free thyroxine index', '32215-6', undefined, 'thyroid', [
    'free thyroxine index',
    'fti',
    't7',
    'free t4 index',
  ]),
  e('tpo_antibodies', 'Thyroid peroxidase antibodies', '8099-4', '[IU]/mL', 'thyroid', [
    'tpo',
    'tpo ab',
    'anti-tpo',
    'thyroid peroxidase ab',
    'thyroid peroxidase antibodies',
    'thyroid peroxidase (tpo) ab',
  ]),
  e('thyroglobulin_antibodies', 'Thyroglobulin antibodies', '8098-6', '[IU]/mL', 'thyroid', [
    'thyroglobulin antibodies',
    'thyroglobulin ab',
    'tg ab',
    'anti-tg',
    'antithyroglobulin ab',
  ]),
  e('thyroglobulin', 'Thyroglobulin', '3013-0', 'ng/mL', 'thyroid', ['thyroglobulin', 'tg']),
  // Diabetes
  e(
    'hba1c',
    'Hemoglobin A1c',
    '4548-4',
    '%',
    'diabetes',
    [
      'hba1c',
      'hemoglobin a1c',
      'a1c',
      'haemoglobin a1c',
      'glycated hemoglobin',
      'glycohemoglobin',
      'hgb a1c',
      'glycosylated hemoglobin',
      'hb a1c',
    ],
    {
      alternates: [{ ucum: 'mmol/mol', factor: 10.929, offset: 2.15, loinc: '59261-8' }],
    },
  ),
  e('estimated_average_glucose', 'Estimated average glucose', '27353-2', 'mg/dL', 'diabetes', [
    'estimated average glucose',
    'eag',
    'est avg glucose',
    'estimated avg glucose',
  ]),
  e(
    'insulin',
    'Insulin',
    '20448-7',
    'u[IU]/mL',
    'diabetes',
    ['insulin', 'fasting insulin', 'insulin fasting'],
    { alternates: [{ ucum: 'pmol/L', factor: 6 }] },
  ),
  e('c_peptide', 'C-peptide', '1986-9', 'ng/mL', 'diabetes', ['c-peptide', 'c peptide'], {
    alternates: [{ ucum: 'nmol/L', factor: 0.331 }],
  }),
  e('fructosamine', 'Fructosamine', '15069-8', 'umol/L', 'diabetes', ['fructosamine']),
  e('homa_ir', 'HOMA-IR', undefined, undefined, 'diabetes', ['homa-ir', 'homa ir']),
  // Iron
  e('iron', 'Iron', '2498-4', 'ug/dL', 'iron', ['iron', 'serum iron', 'iron total', 'fe', 'iron serum'], {
    alternates: [{ ucum: 'umol/L', factor: 0.179, loinc: '14798-3' }],
  }),
  e(
    'tibc',
    'Total iron binding capacity',
    '2500-7',
    'ug/dL',
    'iron',
    ['tibc', 'iron binding capacity', 'total iron binding capacity', 'iron binding capacity total'],
    {
      alternates: [{ ucum: 'umol/L', factor: 0.179, loinc: '14800-7' }],
    },
  ),
  e('uibc', 'Unsaturated iron binding capacity', '2501-5', 'ug/dL', 'iron', [
    'uibc',
    'unsaturated iron binding capacity',
  ]),
  e('transferrin_saturation', 'Transferrin saturation', '2502-3', '%', 'iron', [
    'transferrin saturation',
    'iron saturation',
    '% saturation',
    'tsat',
    'iron % saturation',
    'percent saturation',
  ]),
  e('transferrin', 'Transferrin', '3034-6', 'mg/dL', 'iron', ['transferrin'], {
    alternates: [{ ucum: 'g/L', factor: 0.01 }],
  }),
  e('ferritin', 'Ferritin', '2276-4', 'ng/mL', 'iron', ['ferritin', 'serum ferritin', 'ferritin serum'], {
    alternates: [{ ucum: 'ug/L', factor: 1 }],
  }),
  // Vitamins
  e(
    'vitamin_d',
    'Vitamin D, 25-hydroxy',
    // D2+D3, what labs report as 25-OH vitamin D (1989-3 is D3 alone); the order API codes it so.
    '62292-8',
    'ng/mL',
    'vitamins',
    [
      'vitamin d',
      'vitamin d 25-hydroxy',
      'vitamin d, 25-hydroxy',
      '25-oh vitamin d',
      '25-hydroxyvitamin d',
      '25(oh)d',
      'vitamin d 25 oh',
      'vit d 25-oh',
      'vitamin d,25-hydroxy',
      '25-hydroxy vitamin d',
      'vitamin d total',
    ],
    {
      alternates: [{ ucum: 'nmol/L', factor: 2.496 }],
    },
  ),
  e('vitamin_d_1_25', 'Vitamin D, 1,25-dihydroxy', '1649-3', 'pg/mL', 'vitamins', [
    '1,25-dihydroxyvitamin d',
    'vitamin d 1,25-dihydroxy',
    'calcitriol',
  ]),
  e(
    'vitamin_b12',
    'Vitamin B12',
    '2132-9',
    'pg/mL',
    'vitamins',
    ['vitamin b12', 'b12', 'cobalamin', 'vit b12', 'cyanocobalamin'],
    {
      alternates: [{ ucum: 'pmol/L', factor: 0.738, loinc: '14685-2' }],
    },
  ),
  e(
    'folate',
    'Folate',
    '2284-8',
    'ng/mL',
    'vitamins',
    ['folate', 'folic acid', 'folate serum', 'serum folate'],
    { alternates: [{ ucum: 'nmol/L', factor: 2.266 }] },
  ),
  e('vitamin_a', 'Vitamin A', undefined, 'ug/dL', 'vitamins', ['vitamin a', 'retinol']),
  e('vitamin_b1', 'Vitamin B1', undefined, 'nmol/L', 'vitamins', ['vitamin b1', 'thiamine', 'thiamin']),
  e('vitamin_b6', 'Vitamin B6', undefined, 'ug/L', 'vitamins', [
    'vitamin b6',
    'pyridoxal phosphate',
    'pyridoxine',
  ]),
  e('vitamin_c', 'Vitamin C', '2394-5', 'mg/dL', 'vitamins', ['vitamin c', 'ascorbic acid']),
  e('vitamin_e', 'Vitamin E', '1823-4', 'mg/L', 'vitamins', [
    'vitamin e',
    'alpha tocopherol',
    'alpha-tocopherol',
  ]),
  e('vitamin_k', 'Vitamin K', undefined, 'ng/mL', 'vitamins', ['vitamin k', 'phylloquinone', 'vitamin k1']),
  // Minerals and trace elements
  e('zinc', 'Zinc', '5763-8', 'ug/dL', 'minerals', ['zinc', 'zinc serum', 'zn']),
  e('copper', 'Copper', '5631-7', 'ug/dL', 'minerals', ['copper', 'copper serum', 'cu']),
  e('selenium', 'Selenium', '5724-0', 'ug/L', 'minerals', ['selenium', 'se']),
  e('lead', 'Lead', '5671-3', 'ug/dL', 'minerals', ['lead', 'lead blood', 'blood lead', 'pb']),
  e('ceruloplasmin', 'Ceruloplasmin', '2064-4', 'mg/dL', 'minerals', ['ceruloplasmin']),
  // Hormones
  e(
    'testosterone_total',
    'Testosterone, total',
    '2986-8',
    'ng/dL',
    'hormones',
    ['testosterone', 'testosterone total', 'total testosterone', 'testosterone serum'],
    {
      alternates: [{ ucum: 'nmol/L', factor: 0.03467, loinc: '14913-8' }],
    },
  ),
  e('testosterone_free', 'Testosterone, free', '2991-8', 'pg/mL', 'hormones', [
    'free testosterone',
    'testosterone free',
    'testosterone, free',
  ]),
  e('testosterone_bioavailable', 'Testosterone, bioavailable', '2990-0', 'ng/dL', 'hormones', [
    'bioavailable testosterone',
    'testosterone bioavailable',
  ]),
  e('shbg', 'Sex hormone binding globulin', '13967-5', 'nmol/L', 'hormones', [
    'shbg',
    'sex hormone binding globulin',
    'sex hormone binding glob',
  ]),
  e(
    'estradiol',
    'Estradiol',
    '2243-4',
    'pg/mL',
    'hormones',
    ['estradiol', 'e2', 'oestradiol', 'estradiol serum'],
    { alternates: [{ ucum: 'pmol/L', factor: 3.671 }] },
  ),
  e('estrone', 'Estrone', '2258-2', 'pg/mL', 'hormones', ['estrone', 'e1']),
  e('progesterone', 'Progesterone', '2839-9', 'ng/mL', 'hormones', ['progesterone', 'prog'], {
    alternates: [{ ucum: 'nmol/L', factor: 3.18 }],
  }),
  e('lh', 'Luteinizing hormone', '10501-5', 'm[IU]/mL', 'hormones', [
    'lh',
    'luteinizing hormone',
    'luteinising hormone',
  ]),
  e('fsh', 'Follicle stimulating hormone', '15067-2', 'm[IU]/mL', 'hormones', [
    'fsh',
    'follicle stimulating hormone',
    'follicle-stimulating hormone',
  ]),
  e('prolactin', 'Prolactin', '2842-3', 'ng/mL', 'hormones', ['prolactin', 'prl']),
  e(
    'dhea_s',
    'DHEA sulfate',
    '2191-5',
    'ug/dL',
    'hormones',
    ['dhea-s', 'dhea sulfate', 'dheas', 'dhea-sulfate', 'dehydroepiandrosterone sulfate'],
    {
      alternates: [{ ucum: 'umol/L', factor: 0.02714 }],
    },
  ),
  e(
    'cortisol',
    'Cortisol',
    '2143-6',
    'ug/dL',
    'hormones',
    ['cortisol', 'cortisol am', 'cortisol total', 'morning cortisol', 'cortisol serum'],
    {
      alternates: [{ ucum: 'nmol/L', factor: 27.59 }],
    },
  ),
  e('acth', 'ACTH', '2141-0', 'pg/mL', 'hormones', ['acth', 'adrenocorticotropic hormone', 'corticotropin']),
  e('aldosterone', 'Aldosterone', undefined, 'ng/dL', 'hormones', ['aldosterone']),
  e('growth_hormone', 'Growth hormone', '2963-7', 'ng/mL', 'hormones', [
    'growth hormone',
    'gh',
    'hgh',
    'somatotropin',
  ]),
  e('igf_1', 'IGF-1', '2484-4', 'ng/mL', 'hormones', [
    'igf-1',
    'igf 1',
    'insulin-like growth factor 1',
    'somatomedin c',
    'igf-i',
  ]),
  e('pth', 'Parathyroid hormone', '2731-8', 'pg/mL', 'hormones', [
    'pth',
    'parathyroid hormone',
    'pth intact',
    'intact pth',
    'parathyroid hormone intact',
  ]),
  e('amh', 'Anti-Mullerian hormone', undefined, 'ng/mL', 'hormones', [
    'amh',
    'anti-mullerian hormone',
    'anti mullerian hormone',
    'mullerian inhibiting substance',
  ]),
  e('hcg', 'hCG, total', '21198-7', 'm[IU]/mL', 'hormones', [
    'hcg',
    'beta hcg',
    'hcg quantitative',
    'hcg total',
    'b-hcg',
    'chorionic gonadotropin',
  ]),
  e('dht', 'Dihydrotestosterone', '2205-3', 'ng/dL', 'hormones', ['dihydrotestosterone', 'dht']),
  e('androstenedione', 'Androstenedione', undefined, 'ng/dL', 'hormones', ['androstenedione']),
  e('hydroxyprogesterone_17', '17-Hydroxyprogesterone', '1668-3', 'ng/dL', 'hormones', [
    '17-hydroxyprogesterone',
    '17-oh progesterone',
    '17-ohp',
  ]),
  e('psa', 'PSA, total', '2857-1', 'ng/mL', 'tumor_markers', [
    'psa',
    'psa total',
    'prostate specific antigen',
    'total psa',
    'prostate specific ag',
  ]),
  e('psa_free', 'PSA, free', '10886-0', 'ng/mL', 'tumor_markers', ['free psa', 'psa free']),
  e('calcitonin', 'Calcitonin', '1992-7', 'pg/mL', 'hormones', ['calcitonin']),
  // Inflammation
  e(
    'crp',
    'C-reactive protein',
    '1988-5',
    'mg/L',
    'inflammation',
    ['crp', 'c-reactive protein', 'c reactive protein'],
    { alternates: [{ ucum: 'mg/dL', factor: 0.1 }] },
  ),
  e('hs_crp', 'hs-CRP', '30522-7', 'mg/L', 'inflammation', [
    'hs-crp',
    'hscrp',
    'high sensitivity crp',
    'c-reactive protein cardiac',
    'hs crp',
    'c-reactive protein high sensitivity',
    'crp high sensitivity',
    'cardio crp',
  ]),
  e('homocysteine', 'Homocysteine', '13965-9', 'umol/L', 'inflammation', [
    'homocysteine',
    'homocysteine total',
    'hcy',
  ]),
  e('procalcitonin', 'Procalcitonin', '33959-8', 'ng/mL', 'inflammation', ['procalcitonin', 'pct']),
  e('rheumatoid_factor', 'Rheumatoid factor', '11572-5', '[IU]/mL', 'immunology', [
    'rheumatoid factor',
    'rf',
    'ra factor',
  ]),
  e('ana_screen', 'Antinuclear antibodies', '8061-4', undefined, 'immunology', [
    'ana',
    'ana screen',
    'antinuclear antibodies',
    'ana screen ifa',
    'antinuclear antibody',
  ]),
  e('complement_c3', 'Complement C3', '4485-9', 'mg/dL', 'immunology', ['c3', 'complement c3']),
  e('complement_c4', 'Complement C4', '4498-2', 'mg/dL', 'immunology', ['c4', 'complement c4']),
  e('iga', 'Immunoglobulin A', '2458-8', 'mg/dL', 'immunology', ['iga', 'immunoglobulin a']),
  e('igg', 'Immunoglobulin G', '2465-3', 'mg/dL', 'immunology', ['igg', 'immunoglobulin g']),
  e('igm', 'Immunoglobulin M', '2472-9', 'mg/dL', 'immunology', ['igm', 'immunoglobulin m']),
  e('ige', 'Immunoglobulin E', '19113-0', 'k[IU]/L', 'immunology', ['ige', 'immunoglobulin e', 'total ige']),
  // Cardiac
  e('troponin_i', 'Troponin I', '10839-9', 'ng/mL', 'cardiac', [
    'troponin i',
    'tni',
    'ctni',
    'cardiac troponin i',
  ]),
  e('troponin_t', 'Troponin T', '6598-7', 'ng/mL', 'cardiac', [
    'troponin t',
    'tnt',
    'ctnt',
    'cardiac troponin t',
  ]),
  e('bnp', 'BNP', '30934-4', 'pg/mL', 'cardiac', [
    'bnp',
    'b-type natriuretic peptide',
    'brain natriuretic peptide',
  ]),
  e('nt_probnp', 'NT-proBNP', '33762-6', 'pg/mL', 'cardiac', [
    'nt-probnp',
    'nt probnp',
    'pro-bnp',
    'n-terminal pro-bnp',
  ]),
  e('ck', 'Creatine kinase', '2157-6', 'U/L', 'cardiac', [
    'ck',
    'cpk',
    'creatine kinase',
    'creatine kinase total',
    'ck total',
  ]),
  e('ck_mb', 'CK-MB', '13969-1', 'ng/mL', 'cardiac', ['ck-mb', 'ckmb', 'ck mb']),
  e('myoglobin', 'Myoglobin', '2639-3', 'ng/mL', 'cardiac', ['myoglobin']),
  // Pancreas
  e('amylase', 'Amylase', '1798-8', 'U/L', 'pancreas', ['amylase', 'amylase serum']),
  e('lipase', 'Lipase', '3040-3', 'U/L', 'pancreas', ['lipase', 'lipase serum']),
  // Tumor markers
  e('cea', 'CEA', '2039-6', 'ng/mL', 'tumor_markers', ['cea', 'carcinoembryonic antigen']),
  e('ca_125', 'CA-125', '10334-1', 'U/mL', 'tumor_markers', [
    'ca-125',
    'ca 125',
    'ca125',
    'cancer antigen 125',
  ]),
  e('ca_19_9', 'CA 19-9', '24108-3', 'U/mL', 'tumor_markers', [
    'ca 19-9',
    'ca19-9',
    'ca 19 9',
    'cancer antigen 19-9',
  ]),
  e('ca_15_3', 'CA 15-3', '6875-9', 'U/mL', 'tumor_markers', ['ca 15-3', 'ca15-3', 'cancer antigen 15-3']),
  e('afp', 'Alpha-fetoprotein', '1834-1', 'ng/mL', 'tumor_markers', [
    'afp',
    'alpha-fetoprotein',
    'alpha fetoprotein',
  ]),
  // Urinalysis
  e(
    'urine_specific_gravity',
    'Specific gravity, urine',
    '5811-5',
    undefined,
    'urinalysis',
    ['specific gravity', 'sp gravity', 'urine specific gravity', 'sg'],
    { specimen: 'urine' },
  ),
  e('urine_ph', 'pH, urine', '5803-2', '[pH]', 'urinalysis', ['ph', 'urine ph', 'ph urine'], {
    specimen: 'urine',
  }),
  e(
    'urine_protein',
    'Protein, urine',
    '20454-5',
    undefined,
    'urinalysis',
    ['urine protein', 'protein urine', 'protein ua'],
    { specimen: 'urine' },
  ),
  e(
    'urine_glucose',
    'Glucose, urine',
    '25428-4',
    undefined,
    'urinalysis',
    ['urine glucose', 'glucose urine', 'glucose ua'],
    { specimen: 'urine' },
  ),
  e(
    'urine_ketones',
    'Ketones, urine',
    '2514-8',
    undefined,
    'urinalysis',
    ['ketones', 'urine ketones', 'ketones urine'],
    { specimen: 'urine' },
  ),
  e(
    'urine_blood',
    'Blood, urine',
    '5794-3',
    undefined,
    'urinalysis',
    ['occult blood', 'urine blood', 'blood urine'],
    { specimen: 'urine' },
  ),
  e(
    'urine_nitrite',
    'Nitrite, urine',
    '5802-4',
    undefined,
    'urinalysis',
    ['nitrite', 'urine nitrite', 'nitrites'],
    { specimen: 'urine' },
  ),
  e(
    'urine_leukocyte_esterase',
    'Leukocyte esterase, urine',
    '5799-2',
    undefined,
    'urinalysis',
    ['leukocyte esterase', 'leukocytes urine', 'urine leukocyte esterase'],
    { specimen: 'urine' },
  ),
  e(
    'urine_bilirubin',
    'Bilirubin, urine',
    '5770-3',
    undefined,
    'urinalysis',
    ['urine bilirubin', 'bilirubin urine', 'bilirubin ua'],
    { specimen: 'urine' },
  ),
  e(
    'urine_urobilinogen',
    'Urobilinogen, urine',
    '5818-0',
    'mg/dL',
    'urinalysis',
    ['urobilinogen', 'urine urobilinogen'],
    { specimen: 'urine' },
  ),
];

const BY_KEY = new Map(BIOMARKERS.map((entry) => [entry.key, entry]));

/** The entry with this key; throws for an unknown key (a programming error, caught at load). */
export function dictionaryEntry(key: string): BiomarkerEntry {
  const entry = BY_KEY.get(key);
  if (!entry) throw new Error(`no biomarker "${key}" in the dictionary`);
  return entry;
}

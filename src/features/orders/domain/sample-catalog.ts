// The catalog every installation starts with: six common consumer blood tests, each offered as an
// at-home finger-prick kit, an at-home draw by a mobile phlebotomist and/or a visit to a patient
// service centre. Prices are integer cents in the currency of the region a variant ships to.

import type { Biomarker } from './biomarkers.ts';
import { BIOMARKERS } from './biomarkers.ts';
import type {
  Catalog,
  CatalogProduct,
  CollectionType,
  CurrencyCode,
  ProductType,
  ProductVariant,
} from './catalog.ts';
import { AVAILABILITY, CURRENCY } from './catalog.ts';

export const PRODUCT_TYPES: readonly ProductType[] = [
  { id: 1, name: 'Heart health', description: 'Cholesterol and other cardiovascular risk markers.' },
  { id: 2, name: 'Metabolic health', description: 'Blood sugar control, kidney and liver function.' },
  { id: 3, name: 'Vitamins and nutrition', description: 'Vitamin and mineral status.' },
  { id: 4, name: 'Hormones', description: 'Thyroid function and sex hormones.' },
];

const COLLECTION_METHODS = {
  finger_prick: {
    label: 'At-home finger-prick kit',
    collection_types: ['AT_HOME'],
    sample_type: 'Capillary blood, self-collected',
  },
  mobile_phlebotomy: {
    label: 'At-home phlebotomy visit',
    collection_types: ['AT_HOME'],
    sample_type: 'Venous blood, drawn at home by a phlebotomist',
  },
  lab_visit: {
    label: 'Lab visit',
    collection_types: ['GO_TO_LAB'],
    sample_type: 'Venous blood, drawn at a patient service centre',
  },
} as const satisfies Record<
  string,
  { label: string; collection_types: readonly CollectionType[]; sample_type: string }
>;

type CollectionMethod = keyof typeof COLLECTION_METHODS;

// Where each regional kit may be shipped; lab visits are US-only because the partner labs are.
const REGIONS = {
  US: { currency: CURRENCY.USD, countries: ['US', 'CA'] },
  US_ONLY: { currency: CURRENCY.USD, countries: ['US'] },
  UK: { currency: CURRENCY.GBP, countries: ['GB'] },
  EU: { currency: CURRENCY.EUR, countries: ['AT', 'BE', 'DE', 'ES', 'FR', 'IE', 'IT', 'NL'] },
} as const satisfies Record<string, { currency: CurrencyCode; countries: readonly string[] }>;

type Region = keyof typeof REGIONS;

interface VariantSpec {
  id: number;
  method: CollectionMethod;
  region: Region;
  price_cents: number;
  out_of_stock?: boolean;
}

interface ProductSpec {
  id: number;
  product_type_id: number;
  name: string;
  description: string;
  biomarkers: readonly Biomarker[];
  report_code?: { loinc: string; display: string };
  preparation: string;
  turnaround: string;
  variants: readonly VariantSpec[];
}

function buildVariant(product: ProductSpec, spec: VariantSpec): ProductVariant {
  const method = COLLECTION_METHODS[spec.method];
  const region = REGIONS[spec.region];
  const regionLabel = spec.region === 'US_ONLY' ? 'US' : spec.region;
  return {
    id: spec.id,
    product_id: product.id,
    product_type_id: product.product_type_id,
    variant_name: `${product.name} - ${method.label} (${regionLabel})`,
    price_cents: spec.price_cents,
    currency: region.currency,
    variant_availability: spec.out_of_stock ? AVAILABILITY.OUT_OF_STOCK : AVAILABILITY.IN_STOCK,
    available_collection_types: [...method.collection_types],
    supported_ship_to_countries: [...region.countries],
    variant_defining_attrs: { collection_method: spec.method, region: regionLabel },
    descriptive_attrs_override: { sample_type: method.sample_type },
    images: [],
  };
}

function buildProduct(spec: ProductSpec): CatalogProduct {
  const variants = spec.variants.map((variant) => buildVariant(spec, variant));
  // The headline price is the cheapest US offer, the currency most listings are shown in.
  const usPrices = variants.filter((v) => v.currency === CURRENCY.USD).map((v) => v.price_cents);
  const product: CatalogProduct = {
    id: spec.id,
    name: spec.name,
    description: spec.description,
    product_type_id: spec.product_type_id,
    base_price_cents: Math.min(...usPrices),
    currency: CURRENCY.USD,
    availability: variants.some((v) => v.variant_availability === AVAILABILITY.IN_STOCK)
      ? AVAILABILITY.IN_STOCK
      : AVAILABILITY.OUT_OF_STOCK,
    images: [],
    model_descriptive_attrs: {
      biomarkers: spec.biomarkers.map((biomarker) => biomarker.name).join(', '),
      preparation: spec.preparation,
      turnaround: spec.turnaround,
    },
    variants,
    biomarkers: spec.biomarkers,
  };
  if (spec.report_code) product.report_code = spec.report_code;
  return product;
}

const B = BIOMARKERS;
const FASTING = 'Fast for 9-12 hours before collection; water is fine.';
const NO_FASTING = 'No fasting needed.';
const MORNING = 'Collect before 10am; no fasting needed.';
const STANDARD_TURNAROUND = '2-5 business days after the lab receives the sample.';

const PRODUCT_SPECS: readonly ProductSpec[] = [
  {
    id: 101,
    product_type_id: 1,
    name: 'Lipid Panel',
    description: 'Total, HDL and LDL cholesterol with triglycerides, for cardiovascular risk.',
    biomarkers: [B.total_cholesterol, B.hdl_cholesterol, B.ldl_cholesterol, B.triglycerides],
    report_code: { loinc: '24331-1', display: 'Lipid 1996 panel - Serum or Plasma' },
    preparation: FASTING,
    turnaround: STANDARD_TURNAROUND,
    variants: [
      { id: 1011, method: 'finger_prick', region: 'US', price_cents: 4900 },
      { id: 1012, method: 'finger_prick', region: 'UK', price_cents: 3900 },
      { id: 1013, method: 'finger_prick', region: 'EU', price_cents: 4500 },
      { id: 1014, method: 'mobile_phlebotomy', region: 'US_ONLY', price_cents: 8900 },
      { id: 1015, method: 'lab_visit', region: 'US_ONLY', price_cents: 3500 },
    ],
  },
  {
    id: 102,
    product_type_id: 2,
    name: 'HbA1c',
    description: 'Average blood sugar over the past two to three months.',
    biomarkers: [B.hba1c],
    report_code: { loinc: B.hba1c.loinc, display: B.hba1c.loinc_display },
    preparation: NO_FASTING,
    turnaround: STANDARD_TURNAROUND,
    variants: [
      { id: 1021, method: 'finger_prick', region: 'US', price_cents: 3900 },
      { id: 1022, method: 'finger_prick', region: 'UK', price_cents: 2900 },
      { id: 1023, method: 'lab_visit', region: 'US_ONLY', price_cents: 2900 },
    ],
  },
  {
    id: 103,
    product_type_id: 2,
    name: 'Comprehensive Metabolic Panel',
    description: 'Glucose, electrolytes, kidney and liver function in fourteen markers.',
    biomarkers: [
      B.glucose,
      B.bun,
      B.creatinine,
      B.sodium,
      B.potassium,
      B.chloride,
      B.carbon_dioxide,
      B.calcium,
      B.total_protein,
      B.albumin,
      B.total_bilirubin,
      B.alkaline_phosphatase,
      B.ast,
      B.alt,
    ],
    report_code: { loinc: '24323-8', display: 'Comprehensive metabolic 2000 panel - Serum or Plasma' },
    preparation: FASTING,
    turnaround: STANDARD_TURNAROUND,
    // A venous draw only: a finger-prick sample is too small and haemolyses too easily for a CMP.
    variants: [
      { id: 1031, method: 'mobile_phlebotomy', region: 'US_ONLY', price_cents: 9900 },
      { id: 1032, method: 'lab_visit', region: 'US_ONLY', price_cents: 4900 },
    ],
  },
  {
    id: 104,
    product_type_id: 3,
    name: 'Vitamin D (25-OH)',
    description: 'Total 25-hydroxyvitamin D (D2 + D3), the best measure of vitamin D status.',
    biomarkers: [B.vitamin_d],
    report_code: { loinc: B.vitamin_d.loinc, display: B.vitamin_d.loinc_display },
    preparation: NO_FASTING,
    turnaround: STANDARD_TURNAROUND,
    variants: [
      { id: 1041, method: 'finger_prick', region: 'US', price_cents: 4500 },
      { id: 1042, method: 'finger_prick', region: 'UK', price_cents: 3200 },
      { id: 1043, method: 'finger_prick', region: 'EU', price_cents: 3900 },
      { id: 1044, method: 'lab_visit', region: 'US_ONLY', price_cents: 3900 },
    ],
  },
  {
    id: 105,
    product_type_id: 4,
    name: 'Thyroid Panel',
    description: 'TSH with free T4 and free T3.',
    biomarkers: [B.tsh, B.free_t4, B.free_t3],
    preparation: 'No fasting needed; skip biotin supplements for 72 hours before collection.',
    turnaround: STANDARD_TURNAROUND,
    variants: [
      { id: 1051, method: 'finger_prick', region: 'US', price_cents: 5900 },
      { id: 1052, method: 'finger_prick', region: 'UK', price_cents: 4900 },
      { id: 1053, method: 'lab_visit', region: 'US_ONLY', price_cents: 4900 },
    ],
  },
  {
    id: 106,
    product_type_id: 4,
    name: 'Testosterone Panel',
    description: 'Total and free testosterone with SHBG.',
    biomarkers: [B.total_testosterone, B.free_testosterone, B.shbg],
    preparation: MORNING,
    turnaround: STANDARD_TURNAROUND,
    variants: [
      { id: 1061, method: 'finger_prick', region: 'US', price_cents: 6900 },
      { id: 1062, method: 'finger_prick', region: 'EU', price_cents: 6500, out_of_stock: true },
      { id: 1063, method: 'mobile_phlebotomy', region: 'US_ONLY', price_cents: 10900 },
      { id: 1064, method: 'lab_visit', region: 'US_ONLY', price_cents: 5900 },
    ],
  },
];

export const SAMPLE_CATALOG: Catalog = {
  product_types: PRODUCT_TYPES,
  products: PRODUCT_SPECS.map(buildProduct),
};

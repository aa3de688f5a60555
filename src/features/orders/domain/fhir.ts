// The results file behind `GET /api/v1/results/{order_item_id}`: a FHIR R4 Bundle holding one
// DiagnosticReport, the Patient (the test taker) and one Observation per biomarker
// (docs/wire-contract.md#the-results-file).
//
// Bundle type "collection": the file is a fixed set of resources about one order item, not the
// answer to a search (so not "searchset", which implies search semantics, `total` and
// `entry.search.mode`) and not a signed clinical document (so not "document", which would need a
// Composition first). Resources reference each other by `urn:uuid:` fullUrls, the R4 way to link
// resources inside a bundle that no FHIR server has assigned ids to.

import type { SexAtBirth } from './biomarkers.ts';
import { describeRange } from './biomarkers.ts';
import type { CatalogProduct } from './catalog.ts';
import type { BiomarkerResult, Interpretation } from './sandbox-results.ts';
import { generateSandboxResults } from './sandbox-results.ts';

import {
  type CodeableConcept,
  type Identifier,
  LOINC_SYSTEM,
  OBSERVATION_CATEGORY_SYSTEM,
  type Quantity,
  type Reference,
  stableUuid,
  UCUM_SYSTEM,
} from '../../../model/fhir.ts';

// The shared FHIR pieces live in the model (model/fhir.ts); re-exported for this module's users.
export { LOINC_SYSTEM, stableUuid, UCUM_SYSTEM };
export type { CodeableConcept, Coding, Identifier, Quantity, Reference } from '../../../model/fhir.ts';
export const INTERPRETATION_SYSTEM = 'http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation';
const DIAGNOSTIC_SERVICE_SYSTEM = 'http://terminology.hl7.org/CodeSystem/v2-0074';
const REFERENCE_RANGE_MEANING_SYSTEM = 'http://terminology.hl7.org/CodeSystem/referencerange-meaning';
export const ORDER_ITEM_ID_SYSTEM = 'urn:tributary:order-item-id';
export const TEST_TAKER_ID_SYSTEM = 'urn:tributary:test-taker-id';

const INTERPRETATION_DISPLAY: Readonly<Record<Interpretation, string>> = { L: 'Low', N: 'Normal', H: 'High' };

export interface ObservationReferenceRange {
  low?: Quantity;
  high?: Quantity;
  type?: CodeableConcept;
  text?: string;
}

export interface Patient {
  resourceType: 'Patient';
  id: string;
  identifier: Identifier[];
  name: { family: string; given: string[] }[];
  gender?: SexAtBirth;
  birthDate?: string;
}

export interface Observation {
  resourceType: 'Observation';
  id: string;
  status: 'final';
  category: CodeableConcept[];
  code: CodeableConcept;
  subject: Reference;
  effectiveDateTime: string;
  issued: string;
  valueQuantity: Quantity;
  interpretation: CodeableConcept[];
  referenceRange: ObservationReferenceRange[];
}

export interface DiagnosticReport {
  resourceType: 'DiagnosticReport';
  id: string;
  identifier: Identifier[];
  status: 'final' | 'partial';
  category: CodeableConcept[];
  code: CodeableConcept;
  subject: Reference;
  effectiveDateTime: string;
  issued: string;
  result: Reference[];
  conclusion: string;
}

export type BundleResource = DiagnosticReport | Patient | Observation;

export interface Bundle {
  resourceType: 'Bundle';
  id: string;
  identifier: Identifier;
  type: 'collection';
  timestamp: string;
  entry: { fullUrl: string; resource: BundleResource }[];
}

export interface TestTaker {
  test_taker_id: string;
  first_name: string;
  last_name: string;
  date_of_birth?: string;
  gender_at_birth?: SexAtBirth;
}

export interface ResultsBundleInput {
  orderItemId: string;
  product: Pick<CatalogProduct, 'name' | 'report_code'>;
  testTaker: TestTaker;
  results: readonly BiomarkerResult[];
  /** ISO 8601 instants: when the sample was taken and when the lab released the report. */
  collectedAt: string;
  issuedAt: string;
  /** `partial` for `results.partial_results_ready`: the report lists only what is back so far. */
  reportStatus: 'final' | 'partial';
}

export function buildResultsBundle(input: ResultsBundleInput): Bundle {
  const id = (kind: string) => stableUuid(`${input.orderItemId}|${kind}`);
  const patientId = id('patient');
  const patientRef: Reference = {
    reference: `urn:uuid:${patientId}`,
    display: `${input.testTaker.first_name} ${input.testTaker.last_name}`,
  };
  const observations = input.results.map((result) =>
    buildObservation(id(`observation|${result.biomarker.loinc}`), result, patientRef, input),
  );
  const report: DiagnosticReport = {
    resourceType: 'DiagnosticReport',
    id: id('report'),
    identifier: [{ system: ORDER_ITEM_ID_SYSTEM, value: input.orderItemId }],
    status: input.reportStatus,
    category: [{ coding: [{ system: DIAGNOSTIC_SERVICE_SYSTEM, code: 'LAB', display: 'Laboratory' }] }],
    code: reportCode(input.product),
    subject: patientRef,
    effectiveDateTime: input.collectedAt,
    issued: input.issuedAt,
    result: observations.map((observation) => ({
      reference: `urn:uuid:${observation.id}`,
      display: observation.code.text ?? '',
    })),
    conclusion: summarise(input.results),
  };
  return {
    resourceType: 'Bundle',
    id: id('bundle'),
    identifier: { system: ORDER_ITEM_ID_SYSTEM, value: input.orderItemId },
    type: 'collection',
    timestamp: input.issuedAt,
    entry: [report, buildPatient(patientId, input.testTaker), ...observations].map((resource) => ({
      fullUrl: `urn:uuid:${resource.id}`,
      resource,
    })),
  };
}

/**
 * The bundle the sandbox serves once an item reaches `results_ready` (or `partial_results_ready`,
 * which reports the first half of the panel). Same item id, same bundle.
 */
export function buildSandboxResultsBundle(
  input: Omit<ResultsBundleInput, 'results' | 'product'> & {
    product: Pick<CatalogProduct, 'name' | 'report_code' | 'biomarkers'>;
  },
): Bundle {
  const all = generateSandboxResults(
    input.orderItemId,
    input.product.biomarkers,
    input.testTaker.gender_at_birth,
  );
  const results = input.reportStatus === 'partial' ? all.slice(0, Math.ceil(all.length / 2)) : all;
  return buildResultsBundle({ ...input, results });
}

function buildPatient(id: string, testTaker: TestTaker): Patient {
  const patient: Patient = {
    resourceType: 'Patient',
    id,
    identifier: [{ system: TEST_TAKER_ID_SYSTEM, value: testTaker.test_taker_id }],
    name: [{ family: testTaker.last_name, given: [testTaker.first_name] }],
  };
  if (testTaker.gender_at_birth) patient.gender = testTaker.gender_at_birth;
  if (testTaker.date_of_birth) patient.birthDate = testTaker.date_of_birth;
  return patient;
}

function buildObservation(
  id: string,
  result: BiomarkerResult,
  subject: Reference,
  input: ResultsBundleInput,
): Observation {
  const { biomarker, reference_range: range } = result;
  const quantity = (value: number): Quantity => ({
    value,
    unit: biomarker.unit,
    system: UCUM_SYSTEM,
    code: biomarker.ucum,
  });
  const referenceRange: ObservationReferenceRange = {
    type: { coding: [{ system: REFERENCE_RANGE_MEANING_SYSTEM, code: 'normal', display: 'Normal Range' }] },
    text: rangeText(result, input.testTaker.gender_at_birth),
  };
  if (range.low !== undefined) referenceRange.low = quantity(range.low);
  if (range.high !== undefined) referenceRange.high = quantity(range.high);
  return {
    resourceType: 'Observation',
    id,
    status: 'final',
    category: [
      { coding: [{ system: OBSERVATION_CATEGORY_SYSTEM, code: 'laboratory', display: 'Laboratory' }] },
    ],
    code: {
      coding: [{ system: LOINC_SYSTEM, code: biomarker.loinc, display: biomarker.loinc_display }],
      text: biomarker.name,
    },
    subject,
    effectiveDateTime: input.collectedAt,
    issued: input.issuedAt,
    valueQuantity: quantity(result.value),
    interpretation: [
      {
        coding: [
          {
            system: INTERPRETATION_SYSTEM,
            code: result.interpretation,
            display: INTERPRETATION_DISPLAY[result.interpretation],
          },
        ],
      },
    ],
    referenceRange: [referenceRange],
  };
}

function rangeText(result: BiomarkerResult, sex: SexAtBirth | undefined): string {
  const text = describeRange(result.reference_range, result.biomarker.unit);
  return sex && result.biomarker.reference_range_by_sex ? `${text} (${sex})` : text;
}

function reportCode(product: Pick<CatalogProduct, 'name' | 'report_code'>): CodeableConcept {
  if (!product.report_code) return { text: product.name };
  return {
    coding: [{ system: LOINC_SYSTEM, code: product.report_code.loinc, display: product.report_code.display }],
    text: product.name,
  };
}

function summarise(results: readonly BiomarkerResult[]): string {
  const flagged = results.filter((result) => result.interpretation !== 'N');
  if (flagged.length === 0) return `All ${results.length} results are within the reference range.`;
  const names = flagged.map(
    (result) => `${result.biomarker.name} (${INTERPRETATION_DISPLAY[result.interpretation].toLowerCase()})`,
  );
  return `${flagged.length} of ${results.length} results outside the reference range: ${names.join(', ')}.`;
}

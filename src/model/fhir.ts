// FHIR R4 pieces shared by everything that writes FHIR: the lab-order results file
// (features/orders/domain/fhir.ts) and the export of stored records (features/fhir-export).
// Data types follow https://hl7.org/fhir/R4/datatypes.html; only the members Tributary writes.
import { createHash } from 'node:crypto';

export const LOINC_SYSTEM = 'http://loinc.org';
export const UCUM_SYSTEM = 'http://unitsofmeasure.org';
export const OBSERVATION_CATEGORY_SYSTEM = 'http://terminology.hl7.org/CodeSystem/observation-category';

export interface Coding {
  system: string;
  code: string;
  display?: string;
}
export interface CodeableConcept {
  coding?: Coding[];
  text?: string;
}
export interface Reference {
  reference: string;
  display?: string;
}
export interface Identifier {
  system: string;
  value: string;
}
export interface Quantity {
  value: number;
  unit: string;
  system: string;
  code: string;
}
export interface Period {
  start?: string;
  end?: string;
}

/**
 * A UUID that is a pure function of its seed, so a re-downloaded bundle is byte-identical. Marked
 * version 8 (RFC 9562 custom format) because it is SHA-256 based, not a v4 random or v5 SHA-1 UUID.
 */
export function stableUuid(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex').slice(0, 32).split('');
  hex[12] = '8';
  hex[16] = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

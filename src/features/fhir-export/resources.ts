// The FHIR R4 resources the export writes, as far as Tributary fills them
// (https://hl7.org/fhir/R4/observation.html, device.html, provenance.html, patient.html,
// bundle.html). The official JSON schema (test/integration/fhir-export.test.ts) checks every one.
import type { CodeableConcept, Identifier, Period, Quantity, Reference } from '../../model/fhir.ts';

export interface ObservationComponent {
  code: CodeableConcept;
  valueQuantity?: Quantity;
  valueCodeableConcept?: CodeableConcept;
}

export interface Observation {
  resourceType: 'Observation';
  id: string;
  identifier: Identifier[];
  status: 'final';
  category?: CodeableConcept[];
  code: CodeableConcept;
  subject: Reference;
  effectivePeriod?: Period;
  effectiveDateTime?: string;
  valueQuantity?: Quantity;
  valueCodeableConcept?: CodeableConcept;
  valueDateTime?: string;
  component?: ObservationComponent[];
  device?: Reference;
}

export interface Device {
  resourceType: 'Device';
  id: string;
  identifier?: Identifier[];
  manufacturer?: string;
  serialNumber?: string;
  deviceName?: { name: string; type: 'manufacturer-name' | 'model-name' | 'user-friendly-name' | 'other' }[];
  modelNumber?: string;
  version?: { value: string }[];
  patient: Reference;
  note?: { text: string }[];
}

export interface Provenance {
  resourceType: 'Provenance';
  id: string;
  target: Reference[];
  recorded: string;
  agent: { type: CodeableConcept; who: Reference & { identifier?: Identifier } }[];
  entity: { role: 'source' | 'derivation'; what: { identifier: Identifier; display: string } }[];
}

export interface Patient {
  resourceType: 'Patient';
  id: string;
  identifier: Identifier[];
  active: boolean;
}

export type ExportResource = Observation | Device | Provenance | Patient;
export type ExportResourceType = ExportResource['resourceType'];
export const EXPORT_RESOURCE_TYPES: readonly ExportResourceType[] = [
  'Patient',
  'Observation',
  'Device',
  'Provenance',
];

export interface SearchBundle {
  resourceType: 'Bundle';
  id: string;
  type: 'searchset';
  timestamp: string;
  total?: number;
  link: { relation: 'self' | 'next'; url: string }[];
  entry: { fullUrl: string; resource: ExportResource; search: { mode: 'match' | 'include' } }[];
}

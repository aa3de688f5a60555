// What an export writes for a user and each of their records, per output format: NDJSON lines
// grouped by file type (a FHIR resource type, or an Open mHealth schema). A writer is pure; the
// export job stores its lines with the unit's new place in one transaction.
import { mapRecord, type ExportedType, type Owner, patientOf } from './map-records.ts';
import { EXPORT_RESOURCE_TYPES } from './resources.ts';

export const FHIR_NDJSON = 'application/fhir+ndjson';
/** The Bulk Data spec's aliases of application/fhir+ndjson (https://hl7.org/fhir/uv/bulkdata/export.html). */
export const FHIR_NDJSON_ALIASES = ['application/fhir+ndjson', 'application/ndjson', 'ndjson'];

export type Lines = Map<string, string[]>;

export interface ExportWriter {
  start(owner: Owner, into: Lines): void;
  record(
    owner: Owner,
    type: ExportedType,
    key: string,
    record: Record<string, unknown>,
    devices: Set<string>,
    into: Lines,
  ): void;
}

const push = (into: Lines, type: string, line: string) => {
  const lines = into.get(type);
  if (lines) lines.push(line);
  else into.set(type, [line]);
};

/** FHIR R4 resources, one file type per resource type; `types` limits them (`_type`). */
export function fhirWriter(types: readonly string[], recordedAt: string): ExportWriter {
  const wanted = new Set(types.length > 0 ? types : EXPORT_RESOURCE_TYPES);
  return {
    start(owner, into) {
      if (wanted.has('Patient')) push(into, 'Patient', JSON.stringify(patientOf(owner)));
    },
    record(owner, type, key, record, devices, into) {
      const mapped = mapRecord(owner, type, key, record, recordedAt);
      if (wanted.has('Observation')) {
        for (const observation of mapped.observations) push(into, 'Observation', JSON.stringify(observation));
      }
      if (wanted.has('Device')) {
        for (const device of mapped.devices) {
          if (devices.has(device.id)) continue;
          devices.add(device.id);
          push(into, 'Device', JSON.stringify(device));
        }
      }
      if (wanted.has('Provenance') && mapped.provenance)
        push(into, 'Provenance', JSON.stringify(mapped.provenance));
    },
  };
}

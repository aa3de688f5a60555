// One stored record -> its FHIR R4 resources: Observations (codes and units from codes.ts), the
// Device that took it and a Provenance naming the connection and provider it came through. Pure:
// the same record gives byte-identical resources (ids are stable UUIDs of what they describe), so
// a resumed export or a second read writes what the first did.
import { stableUuid } from '../../model/fhir.ts';
import {
  Builder,
  type Json,
  type MapOptions,
  obj,
  type Owner,
  patientReference,
  RECORD_ID_SYSTEM,
  str,
} from './observation-builder.ts';
import { type ExportedType, MAPPERS } from './record-mappers.ts';
import type { Device, Observation, Patient, Provenance } from './resources.ts';

// The module's face: what its callers name comes from here, wherever it is defined.
export { EXPORTED_TYPES, type ExportedType } from './record-mappers.ts';
export {
  fhirDateTime,
  type MapOptions,
  type Owner,
  patientReference,
  RECORD_ID_SYSTEM,
} from './observation-builder.ts';
export const CONNECTION_ID_SYSTEM = 'urn:tributary:user-id';
export const REFERENCE_ID_SYSTEM = 'urn:tributary:reference-id';
export const DEVICE_SERIAL_SYSTEM = 'urn:tributary:device-serial';
const PROVENANCE_AGENT_SYSTEM = 'http://terminology.hl7.org/CodeSystem/provenance-participant-type';

export interface MappedRecord {
  observations: Observation[];
  devices: Device[];
  provenance: Provenance | null;
}

export function patientOf(owner: Owner): Patient {
  const identifier = [{ system: CONNECTION_ID_SYSTEM, value: owner.userId }];
  if (owner.referenceId) identifier.push({ system: REFERENCE_ID_SYSTEM, value: owner.referenceId });
  return { resourceType: 'Patient', id: owner.userId, identifier, active: true };
}

/** Maps one stored record; a record with nothing mappable gives no resources. */
export function mapRecord(
  owner: Owner,
  type: ExportedType,
  key: string,
  record: Json,
  recordedAt: string,
  options: MapOptions = { withSamples: false },
): MappedRecord {
  const recordId = `${type}/${key}`;
  const device = deviceOf(owner, obj(record['device_data']));
  const builder = new Builder(owner, recordId, device ? { reference: `Device/${device.id}` } : null);
  MAPPERS[type](builder, record, options);
  const observations = builder.observations;
  if (observations.length === 0) return { observations, devices: [], provenance: null };
  return {
    observations,
    devices: device ? [device] : [],
    provenance: provenanceOf(owner, recordId, observations, device, recordedAt),
  };
}

/** The record's device (manufacturer, model, serial, software), owned by the person. */
function deviceOf(owner: Owner, data: Json | null): Device | null {
  if (!data) return null;
  const manufacturer = str(data['manufacturer']);
  const name = str(data['name']);
  const serial = str(data['serial_number']);
  if (!manufacturer && !name && !serial) return null;
  const device: Device = {
    resourceType: 'Device',
    id: stableUuid(`${owner.userId}|device|${manufacturer ?? ''}|${name ?? ''}|${serial ?? ''}`),
    patient: patientReference(owner.userId),
    note: [{ text: `Synced from provider ${owner.provider}` }],
  };
  if (serial) {
    device.identifier = [{ system: DEVICE_SERIAL_SYSTEM, value: serial }];
    device.serialNumber = serial;
  }
  if (manufacturer) device.manufacturer = manufacturer;
  if (name) device.deviceName = [{ name, type: 'model-name' }];
  const hardware = str(data['hardware_version']);
  if (hardware) device.modelNumber = hardware;
  const software = str(data['software_version']);
  if (software) device.version = [{ value: software }];
  return device;
}

/**
 * Where the record's Observations came from: the device that took them (author) and the
 * connection they were synced through (performer), with the stored record as the source entity.
 */
function provenanceOf(
  owner: Owner,
  recordId: string,
  observations: readonly Observation[],
  device: Device | null,
  recordedAt: string,
): Provenance {
  const agent: Provenance['agent'] = [
    {
      type: { coding: [{ system: PROVENANCE_AGENT_SYSTEM, code: 'performer', display: 'Performer' }] },
      who: {
        reference: `Patient/${owner.userId}`,
        display: `connection ${owner.userId} through provider ${owner.provider}`,
      },
    },
  ];
  if (device) {
    agent.unshift({
      type: { coding: [{ system: PROVENANCE_AGENT_SYSTEM, code: 'author', display: 'Author' }] },
      who: { reference: `Device/${device.id}` },
    });
  }
  return {
    resourceType: 'Provenance',
    id: stableUuid(`${owner.userId}|${recordId}|provenance`),
    target: observations.map((observation) => ({ reference: `Observation/${observation.id}` })),
    recorded: recordedAt,
    agent,
    entity: [
      {
        role: 'source',
        what: {
          identifier: { system: RECORD_ID_SYSTEM, value: recordId },
          display: `${owner.provider} record ${recordId} of connection ${owner.userId}`,
        },
      },
    ],
  };
}

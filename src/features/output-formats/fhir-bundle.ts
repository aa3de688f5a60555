// One event's JSON wire payload -> a FHIR R4 Bundle (https://hl7.org/fhir/R4/bundle.html), for
// developers whose output format is `fhir`. Pure, and built only from the FHIR export's mapping
// (fhir-export/map-records.ts): the Observations, Devices and Provenance a delivered record gives
// are the very resources `/fhir/Observation` and `$export` give for it, with the same ids, so a
// receiver that also reads the FHIR API sees one resource, not two.
//
// What has a FHIR form: the data events of the exported types (activity, body, daily, hormone,
// menstruation, nutrition, sleep: a Patient plus each record's resources) and `athlete` (the
// Patient, with the profile's name, gender and birth date). Everything else (planned workouts,
// which are plans, not observations; connection events; lab reports; orders; deletions;
// announcements) has none: `toFhirBundle` answers null and the caller sends the JSON payload
// (docs/wire-contract.md#output-formats).
import { stableUuid } from '../../model/fhir.ts';
import { identityKeyOf, type DataTypeName, type DataTypeRecords } from '../../model/index.ts';
import {
  EXPORTED_TYPES,
  type ExportedType,
  fhirDateTime,
  mapRecord,
  type Owner,
  patientOf,
} from '../fhir-export/map-records.ts';
import type { Device, Observation, Patient, Provenance } from '../fhir-export/resources.ts';

/** A Patient as the export writes it, plus what an `athlete` event says about the person. */
export type EventPatient = Patient & {
  name?: { family?: string; given?: string[] }[];
  gender?: 'male' | 'female' | 'other' | 'unknown';
  birthDate?: string;
};

export type EventResource = EventPatient | Observation | Device | Provenance;

export interface EventBundle {
  resourceType: 'Bundle';
  id: string;
  /** The event's id, so a receiver deduplicates a redelivery by it as by `webhook-id`. */
  identifier: { system: string; value: string };
  /** A `collection`: resources sent together, not a transaction for the receiver to run. */
  type: 'collection';
  timestamp: string;
  meta: { tag: { system: string; code: string }[] };
  entry: { resource: EventResource }[];
}

export const EVENT_ID_SYSTEM = 'urn:tributary:event';
/** The event's wire `type` (`activity`, `athlete` …), as a tag on the Bundle. */
export const EVENT_TYPE_SYSTEM = 'urn:tributary:event-type';

export type EventForFormatting = {
  id: string;
  type: string;
  createdAt: Date;
  /** The JSON wire payload, exactly as the `json` format sends it. */
  body: string;
};

type Json = Record<string, unknown>;
const obj = (value: unknown): Json | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

const EXPORTED = new Set<string>(EXPORTED_TYPES);
const isExported = (type: string): type is ExportedType => EXPORTED.has(type);

/** Whether events of this wire `type` have a FHIR form. */
export const hasFhirForm = (type: string) => type === 'athlete' || isExported(type);

function ownerOf(payload: Json): Owner | null {
  const user = obj(payload['user']);
  const userId = str(user?.['user_id']);
  const provider = str(user?.['provider']);
  if (!user || !userId || !provider) return null;
  return { userId, provider, referenceId: str(user['reference_id']) };
}

/**
 * The key the export gives a record (its identity in the model), else a digest of the record
 * itself: either way the same record gives the same resource ids on every delivery.
 */
function keyOf(type: ExportedType, record: Json): string {
  const identity = identityKeyOf(type as DataTypeName, record as DataTypeRecords[DataTypeName]);
  return identity ?? stableUuid(JSON.stringify(record));
}

// FHIR administrative gender (https://hl7.org/fhir/R4/valueset-administrative-gender.html).
function genderOf(athlete: Json): EventPatient['gender'] | undefined {
  const said = (str(athlete['gender']) ?? str(athlete['sex']))?.toLowerCase();
  if (!said) return undefined;
  if (said === 'male' || said === 'm' || said === 'man') return 'male';
  if (said === 'female' || said === 'f' || said === 'woman') return 'female';
  if (said === 'other' || said === 'non-binary' || said === 'nonbinary') return 'other';
  return 'unknown';
}

function athletePatient(owner: Owner, athlete: Json): EventPatient {
  const patient: EventPatient = patientOf(owner);
  const family = str(athlete['last_name']);
  const given = str(athlete['first_name']);
  if (family || given)
    patient.name = [{ ...(family ? { family } : {}), ...(given ? { given: [given] } : {}) }];
  const gender = genderOf(athlete);
  if (gender) patient.gender = gender;
  const birth = str(athlete['date_of_birth'])?.slice(0, 10);
  if (birth && /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/.test(birth)) patient.birthDate = birth;
  return patient;
}

/**
 * The event as a FHIR Bundle, or null when its type has no FHIR form or its payload is not one
 * this service writes (no `user`, not JSON): the caller then sends it as JSON and says why.
 */
export function toFhirBundle(event: EventForFormatting): EventBundle | null {
  if (!hasFhirForm(event.type)) return null;
  let payload: Json | null;
  try {
    payload = obj(JSON.parse(event.body));
  } catch {
    return null;
  }
  const owner = payload ? ownerOf(payload) : null;
  if (!payload || !owner) return null;
  const recordedAt = fhirDateTime(event.createdAt.toISOString()) ?? event.createdAt.toISOString();
  const resources: EventResource[] = [];
  if (event.type === 'athlete') {
    resources.push(athletePatient(owner, obj(payload['athlete']) ?? {}));
  } else if (isExported(event.type)) {
    resources.push(patientOf(owner));
    const devices = new Map<string, Device>();
    const rest: EventResource[] = [];
    const records = Array.isArray(payload['data']) ? (payload['data'] as unknown[]) : [];
    for (const item of records) {
      const record = obj(item);
      if (!record) continue;
      const mapped = mapRecord(owner, event.type, keyOf(event.type, record), record, recordedAt);
      rest.push(...mapped.observations);
      for (const device of mapped.devices) devices.set(device.id, device);
      if (mapped.provenance) rest.push(mapped.provenance);
    }
    resources.push(...devices.values(), ...rest);
  }
  return {
    resourceType: 'Bundle',
    id: stableUuid(`event|${event.id}`),
    identifier: { system: EVENT_ID_SYSTEM, value: event.id },
    type: 'collection',
    timestamp: recordedAt,
    meta: { tag: [{ system: EVENT_TYPE_SYSTEM, code: event.type }] },
    entry: resources.map((resource) => ({ resource })),
  };
}

// What the per-type mappers (record-mappers.ts) build with: readers of a stored record's JSON that
// tolerate any shape, FHIR's dateTime, and the Builder that turns one slot of a record into an
// Observation with a stable id (the same record always gives the same resources).
import { stableUuid } from '../../model/fhir.ts';
import type { Period, Reference } from '../../model/fhir.ts';
import { conceptOf, type Metric, OBSERVATION_CATEGORY, quantityOf } from './codes.ts';
import type { Observation, ObservationComponent } from './resources.ts';

export const RECORD_ID_SYSTEM = 'urn:tributary:record';

/** Whose record it is: the connection, its provider and the developer's reference id. */
export interface Owner {
  userId: string;
  provider: string;
  referenceId: string | null;
}

export interface MapOptions {
  /** Each heart-rate sample as its own Observation (a day holds hundreds). */
  withSamples: boolean;
}

export type Json = Record<string, unknown>;
export const obj = (value: unknown): Json | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
export const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
export const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;
export const list = (value: unknown): Json[] =>
  Array.isArray(value)
    ? (value as unknown[]).flatMap((item): Json[] => {
        const found = obj(item);
        return found ? [found] : [];
      })
    : [];
export const at = (record: Json, ...path: string[]): unknown =>
  path.reduce<unknown>((value, key) => obj(value)?.[key] ?? null, record);

// FHIR dateTime (http://hl7.org/fhir/R4/datatypes.html#dateTime): a time needs seconds and an offset,
// and the offset lies within ±14:00. A record's own text is kept (its offset is the local time the
// person lived); anything else is written in UTC.
const DATE_TIME =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(Z|[+-]((0\d|1[0-3]):[0-5]\d|14:00))$/;
export function fhirDateTime(text: string | null): string | null {
  if (text === null) return null;
  if (DATE_TIME.test(text)) return text;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
export const FHIR_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

export const patientReference = (userId: string): Reference => ({ reference: `Patient/${userId}` });

export type Effective = { period: Period } | { at: string };

export class Builder {
  readonly observations: Observation[] = [];
  private readonly owner: Owner;
  private readonly recordId: string;
  private readonly device: Reference | null;
  constructor(owner: Owner, recordId: string, device: Reference | null) {
    this.owner = owner;
    this.recordId = recordId;
    this.device = device;
  }

  /** An Observation in `slot` of the record (slots keep ids stable and distinct). */
  add(slot: string, metric: Metric, effective: Effective | null, value: Partial<Observation>): void {
    if (!effective) return;
    const observation: Observation = {
      resourceType: 'Observation',
      id: stableUuid(`${this.owner.userId}|${this.recordId}|${slot}`),
      identifier: [{ system: RECORD_ID_SYSTEM, value: `${this.recordId}#${slot}` }],
      status: 'final',
      ...(metric.category ? { category: [OBSERVATION_CATEGORY[metric.category]] } : {}),
      code: conceptOf(metric),
      subject: patientReference(this.owner.userId),
      ...('period' in effective
        ? { effectivePeriod: effective.period }
        : { effectiveDateTime: effective.at }),
      ...value,
      ...(this.device ? { device: this.device } : {}),
    };
    this.observations.push(observation);
  }

  quantity(slot: string, metric: Metric, effective: Effective | null, value: number | null): void {
    if (value === null) return;
    this.add(slot, metric, effective, { valueQuantity: quantityOf(metric, value) });
  }

  /** One Observation with components; none when no component has a value. */
  panel(slot: string, metric: Metric, effective: Effective | null, parts: [Metric, number | null][]): void {
    const component: ObservationComponent[] = parts.flatMap(([part, value]) =>
      value === null ? [] : [{ code: conceptOf(part), valueQuantity: quantityOf(part, value) }],
    );
    if (component.length === 0) return;
    this.add(slot, metric, effective, { component });
  }
}

// One page of a person's Observations (with their Devices and Provenances): the stored records
// read a page at a time through the data feature, mapped, filtered by code, cut at `count`
// Observations. The cursor says where the next page starts, down to an Observation inside a record.
import type { ConnectionRow } from '../connections/service.ts';
import type { DataService, RecordKeyset } from '../data/service.ts';
import { systemUrl, METRICS } from './codes.ts';
import { EXPORTED_TYPES, mapRecord, type Owner } from './map-records.ts';
import type { Device, Observation, Provenance } from './resources.ts';
import type { Cursor, SearchParams } from './search.ts';

const RECORDS_PER_READ = 32;

export const ownerOf = (user: ConnectionRow): Owner => ({
  userId: user.id,
  provider: user.provider,
  referenceId: user.reference_id,
});

export interface ObservationPage {
  observations: Observation[];
  devices: Device[];
  provenances: Provenance[];
  next: Cursor | null;
}

/** Every code the mapping writes, so that a search for a code it never writes is a 400, not an empty page. */
const KNOWN_CODES = new Set(
  Object.values(METRICS).flatMap((metric) => [
    `${systemUrl(metric)}|${metric.code}`,
    ...('also' in metric ? metric.also.map((coding) => `${coding.system}|${coding.code}`) : []),
  ]),
);
export const isKnownCode = (system: string | null, code: string) =>
  system === null
    ? [...KNOWN_CODES].some((known) => known.endsWith(`|${code}`))
    : KNOWN_CODES.has(`${system}|${code}`);

function matcher(params: SearchParams) {
  const codes = params.codes;
  if (!codes) return () => true;
  return (observation: Observation) =>
    (observation.code.coding ?? []).some((coding) =>
      codes.some(
        (want) => want.code === coding.code && (want.system === null || want.system === coding.system),
      ),
    );
}

export async function observationPage(
  data: Pick<DataService, 'recordPage'>,
  user: ConnectionRow,
  params: SearchParams,
  recordedAt: string,
): Promise<ObservationPage> {
  const owner = ownerOf(user);
  const matches = matcher(params);
  const out: ObservationPage = { observations: [], devices: [], provenances: [], next: null };
  const devices = new Map<string, Device>();
  let { type, skip } = params.cursor;
  let after: RecordKeyset | null = params.cursor.after
    ? { at: new Date(params.cursor.after.at), key: params.cursor.after.key }
    : null;
  while (type < EXPORTED_TYPES.length) {
    const page = await data.recordPage(user.id, EXPORTED_TYPES[type]!, {
      ...(params.filter ? { filter: params.filter } : {}),
      ...(params.since ? { since: params.since } : {}),
      after,
      limit: RECORDS_PER_READ,
    });
    for (const stored of page.records) {
      const mapped = mapRecord(owner, EXPORTED_TYPES[type]!, stored.key, stored.record, recordedAt, {
        withSamples: params.withSamples,
      });
      const wanted = mapped.observations.filter(matches);
      const room = params.count - out.observations.length;
      const taken = wanted.slice(skip, skip + room);
      if (taken.length > 0) {
        out.observations.push(...taken);
        for (const device of mapped.devices) devices.set(device.id, device);
        if (mapped.provenance) out.provenances.push(mapped.provenance);
      }
      const cursorAfter = after ? { at: after.at.toISOString(), key: after.key } : null;
      if (skip + taken.length < wanted.length) {
        out.next = { type, after: cursorAfter, skip: skip + taken.length };
        break;
      }
      skip = 0;
      after = { at: stored.anchorAt, key: stored.key };
      if (out.observations.length === params.count) {
        out.next = { type, after: { at: stored.anchorAt.toISOString(), key: stored.key }, skip: 0 };
        break;
      }
    }
    if (out.next) break;
    if (page.next) after = page.next;
    else {
      type += 1;
      after = null;
    }
  }
  out.devices = [...devices.values()];
  if (!params.includeDevices) out.devices = [];
  if (!params.includeProvenance) out.provenances = [];
  return out;
}

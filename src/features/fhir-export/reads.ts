// FHIR searches of a person's Observations and `$everything`, as searchset Bundles. They serve what is
// stored: they do not fetch from providers (connector jobs, data reads and provider webhooks bring
// records in).
import type { Clock } from '../../core/clock.ts';
import { invalidParameter } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';
import { findConnectionForDeveloper } from '../connections/service.ts';
import type { DataService } from '../data/service.ts';
import type { Developer } from '../developers/service.ts';
import { stableUuid } from '../../model/fhir.ts';
import { patientOf } from './map-records.ts';
import { isKnownCode, observationPage, ownerOf } from './pager.ts';
import type { ExportResource, SearchBundle } from './resources.ts';
import {
  encodeCursor,
  parseEverything,
  parseObservationSearch,
  type Query,
  type SearchParams,
} from './search.ts';

export const FHIR_JSON = 'application/fhir+json; charset=utf-8';

export type FhirDeps = {
  db: Db;
  clock: Clock;
  data: Pick<DataService, 'recordPage'>;
  publicUrl: string;
};

export function createFhirReads(deps: FhirDeps) {
  const { db, clock } = deps;

  function linkTo(path: string, query: Query, cursor: string | null): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (name === '_cursor' || value === undefined) continue;
      for (const each of Array.isArray(value) ? value : [value]) search.append(name, each);
    }
    if (cursor) search.append('_cursor', cursor);
    const text = search.toString();
    return `${deps.publicUrl}${path}${text ? `?${text}` : ''}`;
  }

  async function bundle(
    developer: Developer,
    params: SearchParams,
    request: { path: string; query: Query },
    withPatient: boolean,
  ): Promise<SearchBundle> {
    for (const code of params.codes ?? []) {
      if (!isKnownCode(code.system, code.code)) {
        throw invalidParameter(
          'code',
          `${code.system ? `${code.system}|` : ''}${code.code} is not a code this server writes (docs/fhir.md)`,
        );
      }
    }
    const user = await findConnectionForDeveloper(db, developer.id, params.userId);
    const now = clock.now().toISOString();
    const page = await observationPage(deps.data, user, params, now);
    const first = params.cursor.type === 0 && params.cursor.after === null && params.cursor.skip === 0;
    const entry: SearchBundle['entry'] = [];
    const add = (resource: ExportResource, mode: 'match' | 'include') =>
      entry.push({
        fullUrl: `${deps.publicUrl}/v2/fhir/${resource.resourceType}/${resource.id}`,
        resource,
        search: { mode },
      });
    if (withPatient && first) add(patientOf(ownerOf(user)), 'match');
    for (const observation of page.observations) add(observation, 'match');
    const mode = withPatient ? 'match' : 'include';
    for (const device of page.devices) add(device, mode);
    for (const provenance of page.provenances) add(provenance, mode);
    const link: SearchBundle['link'] = [
      {
        relation: 'self',
        url: linkTo(request.path, request.query, (request.query['_cursor'] as string | undefined) ?? null),
      },
    ];
    if (page.next)
      link.push({ relation: 'next', url: linkTo(request.path, request.query, encodeCursor(page.next)) });
    return {
      resourceType: 'Bundle',
      id: stableUuid(`${developer.id}|${link[0]!.url}|${now}`),
      type: 'searchset',
      timestamp: now,
      link,
      entry,
    };
  }

  return {
    /** `GET /v2/fhir/Observation?subject=Patient/{user_id}&…` as a searchset Bundle. */
    search(developer: Developer, query: Query): Promise<SearchBundle> {
      return bundle(developer, parseObservationSearch(query), { path: '/v2/fhir/Observation', query }, false);
    },
    /** `GET /v2/fhir/Patient/{user_id}/$everything`: the Patient, then every Observation, Device and Provenance. */
    everything(developer: Developer, userId: string, query: Query): Promise<SearchBundle> {
      const params = parseEverything(userId, query);
      return bundle(
        developer,
        params,
        { path: `/v2/fhir/Patient/${params.userId}/$everything`, query },
        true,
      );
    },
  };
}

export type FhirReads = ReturnType<typeof createFhirReads>;

// The FHIR feature's service: searches and `$everything` (reads.ts) and the bulk export
// (export.ts). Routes stay thin; this decides.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { Config } from '../../core/config.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import type { ConnectionsService } from '../connections/service.ts';
import type { DataService } from '../data/service.ts';
import { createBulkExport } from './export.ts';
import { createFhirReads } from './reads.ts';

export { FHIR_JSON } from './reads.ts';
export { EXPORT_PRUNE_QUEUE, EXPORT_UNIT_QUEUE } from './export.ts';

export type FhirServiceDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  config: Config;
  jobs: JobQueue;
  data: Pick<DataService, 'recordPage'>;
  connections: Pick<ConnectionsService, 'subscriptions'>;
};

export function createFhirService(deps: FhirServiceDeps) {
  const reads = createFhirReads({
    db: deps.db,
    clock: deps.clock,
    data: deps.data,
    publicUrl: deps.config.publicUrl,
  });
  const bulk = createBulkExport(deps);
  return { ...reads, export: bulk };
}

export type FhirService = ReturnType<typeof createFhirService>;

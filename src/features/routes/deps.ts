// What the routes feature is built from (the composition root passes it to createRoutesService).
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { ProviderCatalog } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import type { DataService } from '../data/service.ts';

export type RoutesDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  providers: ProviderCatalog;
  /** The provider context (HTTP with the user's fresh token) comes from the data feature's sync. */
  data: Pick<DataService, 'sync'>;
};

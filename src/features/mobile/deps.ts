// What the mobile feature is built from (the composition root passes it to createMobileService).
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { Config } from '../../core/config.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { ProviderCatalog } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import type { ConnectingService } from '../connecting/service.ts';
import type { DataService } from '../data/service.ts';
import type { IntegrationsService } from '../integrations/service.ts';

export type MobileDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  config: Config;
  jobs: JobQueue;
  providers: ProviderCatalog;
  integrations: Pick<IntegrationsService, 'requireSdkSource'>;
  connecting: Pick<ConnectingService, 'consumeSdkToken' | 'activateSdkConnection'>;
  data: Pick<DataService, 'write' | 'prepareWrites'>;
};

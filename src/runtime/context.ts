import type { Logger } from 'pino';
import type { Config } from '../core/config.ts';
import { type ConnectorsService, createConnectorsService } from '../features/sync/service.ts';
import { createSecretBox, type SecretBox } from '../core/secret-box.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { type ConnectionsService, createConnectionsService } from '../features/connections/service.ts';
import { createDataService, type DataService } from '../features/data/service.ts';
import { createDevelopersService, type DevelopersService } from '../features/developers/service.ts';
import { createIntegrationsService, type IntegrationsService } from '../features/integrations/service.ts';
import { createOrdersService, type OrdersService } from '../features/orders/service.ts';
import { createUsersService, type UsersService } from '../features/users/service.ts';
import { createWebhooksService, type WebhooksService } from '../features/webhooks/service.ts';
import { createWidgetService, type WidgetService } from '../features/widget/service.ts';
import { createProviderCatalog, type ProviderCatalog } from '../provider-access/catalog.ts';
import type { Db, Store } from '../store/db.ts';

/** Time as the service sees it; tests inject a fixed or moving clock. */
export type Clock = { now(): Date };
export const systemClock: Clock = { now: () => new Date() };

/** Everything a module needs, built once per process (or per test app). */
export type AppContext = {
  config: Config;
  store: Store;
  db: Db;
  jobs: JobQueue;
  log: Logger;
  clock: Clock;
  secretBox: SecretBox;
  developers: DevelopersService;
  webhooks: WebhooksService;
  providers: ProviderCatalog;
  integrations: IntegrationsService;
  users: UsersService;
  connections: ConnectionsService;
  widget: WidgetService;
  orders: OrdersService;
  data: DataService;
  connectors: ConnectorsService;
};

export function createContext(deps: {
  config: Config;
  store: Store;
  jobs: JobQueue;
  log: Logger;
  clock?: Clock;
}): AppContext {
  const secretBox = createSecretBox(deps.config.encryptionKey);
  const db = deps.store.db;
  const clock = deps.clock ?? systemClock;
  const webhooks = createWebhooksService({
    db,
    jobs: deps.jobs,
    secretBox,
    clock,
    log: deps.log,
    config: deps.config,
  });
  const providers = createProviderCatalog(deps.config);
  const integrations = createIntegrationsService({ db, providers, clock, publicUrl: deps.config.publicUrl });
  const connections = createConnectionsService({
    db,
    config: deps.config,
    clock,
    secretBox,
    log: deps.log,
    jobs: deps.jobs,
    providers,
    integrations,
    webhooks,
    // Bound late: the connector framework needs the connections service it is handed to.
    onConnected: (trx, connection) => connectors.onConnected(trx, connection),
    freshAccessToken: (userId) => connectors.freshAccessToken(userId),
    revokeWithConnector: (userId) => connectors.revoke(userId),
  });
  const connectors = createConnectorsService({
    db,
    clock,
    config: deps.config,
    secretBox,
    log: deps.log,
    jobs: deps.jobs,
    providers,
    connections,
  });
  return {
    ...deps,
    db,
    clock,
    secretBox,
    developers: createDevelopersService({ db, secretBox }),
    webhooks,
    providers,
    integrations,
    users: createUsersService({ db }),
    connections,
    widget: createWidgetService({ db, clock, config: deps.config, providers, integrations, connections }),
    orders: createOrdersService({ db, jobs: deps.jobs, clock, config: deps.config, log: deps.log, webhooks }),
    data: createDataService({
      db,
      jobs: deps.jobs,
      clock,
      log: deps.log,
      config: deps.config,
      providers,
      secretBox,
      webhooks,
      connectorContext: connectors.dataContext,
    }),
    connectors,
  };
}

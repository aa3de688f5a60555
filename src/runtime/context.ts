import type { Logger } from 'pino';
import type { AppContext } from '../features/context.ts';
import { type Clock, systemClock } from '../core/clock.ts';
import type { Config } from '../core/config.ts';
import { createConnectorsService } from '../features/connectors/service.ts';
import { createSecretBox } from '../core/secret-box.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { createConnectingService } from '../features/connecting/service.ts';
import { createDashboardService } from '../features/dashboard/service.ts';
import { createDataService } from '../features/data/service.ts';
import { createMergeService } from '../features/merge/service.ts';
import { createScoresService } from '../features/scores/service.ts';
import { createMcpService } from '../features/mcp/service.ts';
import { createFhirService } from '../features/fhir-export/service.ts';
import { createSubjectAccessService } from '../features/subject-access/service.ts';
import { createWorkoutsService } from '../features/workouts/service.ts';
import { createRoutesService } from '../features/routes/service.ts';
import { createDevelopersService, CREDENTIALS_TOPIC } from '../features/developers/service.ts';
import { createIntegrationsService } from '../features/integrations/service.ts';
import { createLabReportsService } from '../features/lab-reports/service.ts';
import { labReportSettings } from '../features/lab-reports/settings.ts';
import { createMobileService } from '../features/mobile/service.ts';
import { createOrdersService } from '../features/orders/service.ts';
import { createConnectionsService } from '../features/connections/service.ts';
import { recordDeliveries, withheldByConnectionState } from '../features/connections/webhook-hooks.ts';
import { createWebhooksService } from '../features/delivery/service.ts';
import { createWidgetService } from '../features/widget/service.ts';
import { createProviderAccess } from '../provider-access/access.ts';
import { createProviderCatalog } from '../provider-access/catalog.ts';
import { createStoredProviderSettings } from '../provider-access/stored-settings.ts';
import { createOutputFormatsService } from '../features/output-formats/service.ts';
import type { Store } from '../store/db.ts';
import { checkSettings } from './settings.ts';

export type { AppContext } from '../features/context.ts';

export function createContext(deps: {
  config: Config;
  store: Store;
  jobs: JobQueue;
  log: Logger;
  clock?: Clock;
}): AppContext {
  checkSettings(deps.config);
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
    // The engine never touches `connections`: data about a connection goes out only while it is
    // active, and a delivery stamps its last_webhook_update.
    hooks: { suppress: withheldByConnectionState, afterDelivery: recordDeliveries },
  });
  const providers = createProviderCatalog(deps.config);
  const providerSettings = createStoredProviderSettings({
    db,
    secretBox,
    config: deps.config,
    clock,
    log: deps.log,
    providers,
    listen: (topic, handlers) => deps.store.listen(topic, handlers),
  });
  const providerAccess = createProviderAccess({
    db,
    clock,
    config: deps.config,
    secretBox,
    log: deps.log,
    providers,
  });
  const integrations = createIntegrationsService({ db, providers, clock, publicUrl: deps.config.publicUrl });
  const connecting = createConnectingService({
    db,
    config: deps.config,
    clock,
    secretBox,
    log: deps.log,
    jobs: deps.jobs,
    providers,
    integrations,
    webhooks,
    access: providerAccess,
  });
  const connectors = createConnectorsService({
    db,
    clock,
    config: deps.config,
    log: deps.log,
    jobs: deps.jobs,
    providers,
    access: providerAccess,
    connecting,
  });
  const data = createDataService({
    db,
    jobs: deps.jobs,
    clock,
    log: deps.log,
    config: deps.config,
    providers,
    secretBox,
    webhooks,
    connectorContext: providerAccess.dataContext,
    readDb: deps.store.readDb,
  });
  const connections = createConnectionsService({ db });
  const developers = createDevelopersService({
    db,
    // Cached credentials are forgotten on every change notice, from this process or another.
    credentialChanges: (handlers) => deps.store.listen(CREDENTIALS_TOPIC, handlers),
    // Every developer gets its webhook destination (and signing secret) as it is created.
    setUp: async (trx, developer) => ({
      webhookSecret: (await webhooks.createDestinationFor(trx, developer)).secret,
    }),
    // A suspended developer's deliveries are held, and go out again once it is resumed.
    statusHooks: {
      changed: (trx, developer) =>
        webhooks.holdForSuspension(trx, developer.id, developer.status === 'suspended'),
      committed: async (developer) => {
        if (developer.status === 'active') await webhooks.releaseHeldOnResume(developer.id);
      },
    },
  });
  const context = {
    ...deps,
    db,
    clock,
    secretBox,
    developers,
    webhooks,
    providers,
    providerAccess,
    providerSettings,
    integrations,
    connections,
    connecting,
    widget: createWidgetService({ db, clock, config: deps.config, providers, integrations, connecting }),
    orders: createOrdersService({ db, jobs: deps.jobs, clock, config: deps.config, log: deps.log, webhooks }),
    data,
    // Registers its planned workouts with the data feature's reads and events as it is built.
    workouts: createWorkoutsService({ db, clock, log: deps.log, providers, data }),
    routes: createRoutesService({ db, clock, log: deps.log, providers, data }),
    connectors,
    dashboard: createDashboardService({ db, clock, config: deps.config, developers }),
    outputFormats: createOutputFormatsService({ db, clock }),
    labReports: createLabReportsService({
      db,
      jobs: deps.jobs,
      clock,
      log: deps.log,
      secretBox,
      publicUrl: deps.config.publicUrl,
      webhooks,
      settings: deps.config.settings.get(labReportSettings),
    }),
    mobile: createMobileService({
      db,
      clock,
      log: deps.log,
      config: deps.config,
      jobs: deps.jobs,
      providers,
      integrations,
      connecting,
      data,
    }),
    // Registers with the data feature (changed days) and connections (a connection moving between
    // people) to send merged events, as it is built.
    merge: createMergeService({
      db,
      jobs: deps.jobs,
      clock,
      log: deps.log,
      config: deps.config,
      providers,
      data,
      connections,
      webhooks,
    }),
    // Registers with the data feature as an enricher (computed scores on daily and sleep records).
    scores: createScoresService({ data, log: deps.log }),
    fhir: createFhirService({
      db,
      clock,
      log: deps.log,
      config: deps.config,
      jobs: deps.jobs,
      data,
      connections,
    }),
  };
  // The MCP server's tools read through the services above, as the API's routes do.
  return {
    ...context,
    subjectAccess: createSubjectAccessService({ db, clock, data, webhooks, labReports: context.labReports }),
    mcp: createMcpService({
      db,
      clock,
      config: deps.config,
      developers,
      connections: context.connections,
      data,
      merge: context.merge,
      labReports: context.labReports,
      dashboard: context.dashboard,
    }),
  };
}

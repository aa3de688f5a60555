// The services every entry point (HTTP routes, queue workers, CLI) is handed: one per feature,
// plus the infrastructure they share. Built by runtime/context.ts.
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import type { Config } from '../core/config.ts';
import type { ConnectorsService } from './connectors/service.ts';
import type { SecretBox } from '../core/secret-box.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { ConnectingService } from './connecting/service.ts';
import type { DashboardService } from './dashboard/service.ts';
import type { DataService } from './data/service.ts';
import type { DevelopersService } from './developers/service.ts';
import type { FhirService } from './fhir-export/service.ts';
import type { SubjectAccessService } from './subject-access/service.ts';
import type { IntegrationsService } from './integrations/service.ts';
import type { LabReportsService } from './lab-reports/service.ts';
import type { MergeService } from './merge/service.ts';
import type { ScoresService } from './scores/service.ts';
import type { McpService } from './mcp/service.ts';
import type { MobileService } from './mobile/service.ts';
import type { OrdersService } from './orders/service.ts';
import type { ConnectionsService } from './connections/service.ts';
import type { WebhooksService } from './delivery/service.ts';
import type { WidgetService } from './widget/service.ts';
import type { WorkoutsService } from './workouts/service.ts';
import type { RoutesService } from './routes/service.ts';
import type { OutputFormatsService } from './output-formats/service.ts';
import type { ProviderAccess } from '../provider-access/access.ts';
import type { ProviderCatalog } from '../provider-access/catalog.ts';
import type { StoredProviderSettings } from '../provider-access/stored-settings.ts';
import type { Db, Store } from '../store/db.ts';

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
  providerAccess: ProviderAccess;
  /** Provider settings the operator stored (the dashboard); the environment wins over them. */
  providerSettings: StoredProviderSettings;
  integrations: IntegrationsService;
  connections: ConnectionsService;
  connecting: ConnectingService;
  widget: WidgetService;
  orders: OrdersService;
  data: DataService;
  workouts: WorkoutsService;
  routes: RoutesService;
  connectors: ConnectorsService;
  dashboard: DashboardService;
  labReports: LabReportsService;
  mobile: MobileService;
  merge: MergeService;
  scores: ScoresService;
  mcp: McpService;
  fhir: FhirService;
  subjectAccess: SubjectAccessService;
  /** The format each developer's events are delivered in (json, fhir, fit). */
  outputFormats: OutputFormatsService;
};

// The HTTP surface, one registrar per feature. Each gets the app and the services and stays thin:
// route -> service.
import type { AppContext } from '../../features/context.ts';
import type { App } from '../app-type.ts';
import { registerApiKeyPageRoutes } from './api-key-page.ts';
import { registerConnectingRoutes } from './connecting.ts';
import { registerDataRoutes } from './data.ts';
import { registerDestinationRoutes } from './destinations.ts';
import { registerFhirRoutes } from './fhir.ts';
import { registerSubjectAccessRoutes } from './subject-access.ts';
import { registerDashboardRoutes } from '../dashboard/routes.ts';
import { registerIntegrationRoutes } from './integrations.ts';
import { registerLabReportRoutes } from './lab-reports.ts';
import { registerMcpRoutes } from './mcp.ts';
import { registerMobileRoutes } from './mobile.ts';
import { registerNotificationRoutes } from './notifications.ts';
import { registerOrderRoutes } from './orders.ts';
import { registerPeopleRoutes } from './people.ts';
import { registerSandboxConsentRoutes } from './sandbox-consent.ts';
import { registerUserRoutes } from './users.ts';
import { registerWidgetRoutes } from './widget.ts';
import { registerWorkoutRoutes } from './workouts.ts';
import { registerRoutesRoutes } from './routes.ts';
import { registerOutputFormatRoutes } from './output-formats.ts';

type RouteRegistrar = (app: App, ctx: AppContext) => void | Promise<void>;

export const routeRegistrars: readonly RouteRegistrar[] = [
  // Destinations of every kind, and /v2/webhook as the primary webhook's alias.
  registerDestinationRoutes,
  // The format events are delivered in (json, fhir, fit).
  registerOutputFormatRoutes,
  registerIntegrationRoutes,
  registerUserRoutes,
  registerConnectingRoutes,
  registerWidgetRoutes,
  registerOrderRoutes,
  registerDataRoutes,
  registerPeopleRoutes,
  registerWorkoutRoutes,
  registerRoutesRoutes,
  registerNotificationRoutes,
  // The developer dashboard at /dashboard (HTML; http/dashboard/).
  registerDashboardRoutes,
  registerLabReportRoutes,
  registerMobileRoutes,
  // The MCP server for AI assistants at /mcp, and its per-user tokens.
  registerMcpRoutes,
  // The key page of providers connected with a personal API key.
  registerApiKeyPageRoutes,
  registerFhirRoutes,
  // Data-subject requests: a user's archive, erasure receipts.
  registerSubjectAccessRoutes,
  // The built-in simulated provider's consent page and token endpoint (sandbox-consent.ts).
  (app, ctx) =>
    registerSandboxConsentRoutes(app, { config: ctx.config, clock: ctx.clock, secretBox: ctx.secretBox }),
];

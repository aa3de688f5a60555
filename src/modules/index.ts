import { connectorsModule } from '../connectors/module.ts';
import type { AppContext } from '../context.ts';
import type { App } from '../http/app-type.ts';
import { connectionsModule } from './connections/routes.ts';
import { dataModule } from './data/module.ts';
import { integrationsModule } from './integrations/routes.ts';
import { ordersModule } from './orders/routes.ts';
import { usersModule } from './users/routes.ts';
import { webhooksModule } from './webhooks/module.ts';
import { widgetModule } from './widget/routes.ts';

/**
 * A feature area. `jobs` declares its queues (before the queue starts); `routes` registers
 * its HTTP routes. Each module owns its files; this list is the only place they meet.
 */
export type Module = {
  name: string;
  jobs?(ctx: AppContext): void;
  routes?(app: App, ctx: AppContext): void | Promise<void>;
};

export const modules: Module[] = [
  webhooksModule,
  integrationsModule,
  usersModule,
  connectionsModule,
  widgetModule,
  ordersModule,
  dataModule,
  connectorsModule,
];

import { connectorsModule } from './modules/sync.ts';
import type { AppContext } from './context.ts';
import type { App } from '../http/app-type.ts';
import { connectionsModule } from '../http/routes/connections.ts';
import { dataModule } from './modules/data.ts';
import { integrationsModule } from '../http/routes/integrations.ts';
import { ordersModule } from '../http/routes/orders.ts';
import { usersModule } from '../http/routes/users.ts';
import { webhooksModule } from './modules/webhooks.ts';
import { widgetModule } from '../http/routes/widget.ts';

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

import type { ConnectorTables } from './tables/sync.ts';
import type { ConnectionTables } from './tables/connections.ts';
import type { DataTables } from './tables/data.ts';
import type { DeveloperTables } from './tables/developers.ts';
import type { OrderTables } from './tables/orders.ts';
import type { UserTables } from './tables/users.ts';
import type { WebhookTables } from './tables/webhooks.ts';

/** The whole database, composed from each module's own tables. */
export interface Database
  extends
    DeveloperTables,
    UserTables,
    ConnectionTables,
    WebhookTables,
    OrderTables,
    DataTables,
    ConnectorTables {}

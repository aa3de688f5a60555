import type { ConnectorTables } from '../connectors/tables.ts';
import type { ConnectionTables } from '../modules/connections/tables.ts';
import type { DataTables } from '../modules/data/tables.ts';
import type { DeveloperTables } from '../modules/developers/tables.ts';
import type { OrderTables } from '../modules/orders/tables.ts';
import type { UserTables } from '../modules/users/tables.ts';
import type { WebhookTables } from '../modules/webhooks/tables.ts';

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

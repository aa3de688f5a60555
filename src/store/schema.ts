import type { DeveloperTables } from '../modules/developers/tables.ts';
import type { UserTables } from '../modules/users/tables.ts';

/** The whole database, composed from each module's own tables. */
export interface Database extends DeveloperTables, UserTables {}

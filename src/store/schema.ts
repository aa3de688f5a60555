import type { DeveloperTables } from '../modules/developers/tables.ts';

/** The whole database, composed from each module's own tables. */
export interface Database extends DeveloperTables {}

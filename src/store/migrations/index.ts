import type { Migration } from 'kysely/migration';
import * as developers from './0001_developers.ts';
import * as users from './0002_users.ts';

/**
 * Every migration, in order. Names are stable forever: the migrator records them, so a
 * renamed file would run twice. Add new ones at the end.
 */
export const migrations: Record<string, Migration> = {
  '0001_developers': developers,
  '0002_users': users,
};

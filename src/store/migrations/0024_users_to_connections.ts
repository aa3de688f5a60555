import { type Kysely, sql } from 'kysely';

/**
 * Issue 27: one vocabulary. A row of `users` is one connection (one end user's link to one
 * provider account), so the table is named for it. Rows, ids, foreign keys (they follow the
 * table, not its name) and the wire's `user_id` stay as they are; only the names that embed
 * the old word change: the table, its constraints (primary key, foreign key, check, and the
 * not-null constraints PostgreSQL 18 names) and its indexes. `RENAME` keeps the data in place,
 * so this is instant on a populated table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE users RENAME TO connections`.execute(db);
  // Constraints first: renaming the primary key renames its index with it.
  const constraints = await sql<{ name: string }>`
    SELECT conname AS name FROM pg_constraint
     WHERE conrelid = 'connections'::regclass AND starts_with(conname, 'users_')`.execute(db);
  for (const { name } of constraints.rows) {
    await sql`ALTER TABLE connections RENAME CONSTRAINT ${sql.id(name)} TO ${sql.id(renamed(name))}`.execute(
      db,
    );
  }
  const indexes = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE i.indrelid = 'connections'::regclass AND starts_with(c.relname, 'users_')`.execute(db);
  for (const { name } of indexes.rows) {
    await sql`ALTER INDEX ${sql.id(name)} RENAME TO ${sql.id(renamed(name))}`.execute(db);
  }
}

const renamed = (name: string) => `connections_${name.slice('users_'.length)}`;

import { type Expression, type Selectable, expressionBuilder, sql } from 'kysely';
import { type Db, liftStatementDeadline } from '../../store/db.ts';
import type { Database } from '../../store/schema.ts';
import type { ConnectionStatus, ConnectionsTable } from './tables.ts';

export type ConnectionRow = Selectable<ConnectionsTable>;

/** Every query is scoped by developer: another developer's connection is indistinguishable from none. */

export async function insertPendingConnection(
  db: Db,
  row: { id: string; developer_id: string; provider: string; reference_id: string | null },
): Promise<ConnectionRow> {
  return db
    .insertInto('connections')
    .values({
      ...row,
      status: 'pending',
      scopes: null,
      provider_user_id: null,
      last_webhook_update: null,
      last_polled_at: null,
      most_recent_data_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findConnection(
  db: Db,
  developerId: string,
  userId: string,
): Promise<ConnectionRow | undefined> {
  return connectionQuery(db, developerId, userId).executeTakeFirst();
}

/**
 * `findConnection` as a query not yet run, for a statement that does more with the connection
 * in the same round trip (a data read charges its budget in it, as a CTE).
 */
export function connectionQuery(db: Db, developerId: string, userId: string) {
  return db
    .selectFrom('connections')
    .selectAll()
    .where('developer_id', '=', developerId)
    .where('id', '=', userId);
}

/** By id alone: for flows (callbacks, provider events) that already hold a trusted user id. */
export async function findConnectionById(db: Db, userId: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('connections').selectAll().where('id', '=', userId).executeTakeFirst();
}

export async function findConnectionsByIds(
  db: Db,
  developerId: string,
  userIds: readonly string[],
): Promise<ConnectionRow[]> {
  if (userIds.length === 0) return [];
  return db
    .selectFrom('connections')
    .selectAll()
    .where('developer_id', '=', developerId)
    .where('id', 'in', userIds)
    .execute();
}

export async function findConnectionsByReference(
  db: Db,
  developerId: string,
  referenceId: string,
): Promise<ConnectionRow[]> {
  return db
    .selectFrom('connections')
    .selectAll()
    .where('developer_id', '=', developerId)
    .where('reference_id', '=', referenceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** A developer's connection, locked until the transaction ends (undefined if there is none). */
export async function lockDeveloperConnection(
  trx: Db,
  developerId: string,
  userId: string,
): Promise<ConnectionRow | undefined> {
  return trx
    .selectFrom('connections')
    .selectAll()
    .where('developer_id', '=', developerId)
    .where('id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
}

export async function updateConnection(
  db: Db,
  developerId: string,
  userId: string,
  changes: Partial<{ reference_id: string | null; active: boolean }>,
): Promise<ConnectionRow | undefined> {
  return db
    .updateTable('connections')
    .set(changes)
    .where('developer_id', '=', developerId)
    .where('id', '=', userId)
    .returningAll()
    .executeTakeFirst();
}

/** Points a user still pending consent at another provider (a widget retry); undefined if not pending. */
export async function reassignPendingConnection(
  db: Db,
  userId: string,
  provider: string,
): Promise<ConnectionRow | undefined> {
  return db
    .updateTable('connections')
    .set({ provider })
    .where('id', '=', userId)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

export async function activateConnection(
  db: Db,
  userId: string,
  changes: { scopes: string | null; provider_user_id: string | null },
): Promise<ConnectionRow> {
  return db
    .updateTable('connections')
    .set({ ...changes, status: 'active' })
    .where('id', '=', userId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Replaces the scopes (permissions) a connection grants; returns the row. */
export async function setScopes(
  db: Db,
  userId: string,
  scopes: string | null,
): Promise<ConnectionRow | undefined> {
  return db
    .updateTable('connections')
    .set({ scopes })
    .where('id', '=', userId)
    .returningAll()
    .executeTakeFirst();
}

/** Moves a user from one of `from` to `to`; returns the row only when it changed. */
export async function changeStatus(
  db: Db,
  userId: string,
  from: readonly ConnectionStatus[],
  to: ConnectionStatus,
): Promise<ConnectionRow | undefined> {
  return db
    .updateTable('connections')
    .set({ status: to })
    .where('id', '=', userId)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/** Tokens, auth sessions and (later) data records go with it: ON DELETE CASCADE. */
export async function deleteConnection(db: Db, userId: string): Promise<boolean> {
  // Years of records and samples may go with it: no request's statement deadline (store/db.ts).
  await liftStatementDeadline(db);
  const result = await db.deleteFrom('connections').where('id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Locks the user's row to the end of the transaction (serializes work on one user); false when gone. */
export async function lockConnection(db: Db, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('connections')
    .select('id')
    .where('id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Subqueries for another feature's query (one round trip, no join on this table from outside):
 * the ids of a developer's users, for `where(userIdColumn, 'in', …)`.
 */
export function userIdsOfDeveloper(developerId: string) {
  return expressionBuilder<Database>()
    .selectFrom('connections')
    .select('connections.id')
    .where('connections.developer_id', '=', developerId);
}

/** A user's status and developer as two columns of another feature's query, by its user id column. */
export function statusAndDeveloperOf(userId: Expression<string>) {
  const eb = expressionBuilder<Database>();
  return [
    eb
      .selectFrom('connections')
      .select('connections.status')
      .where('connections.id', '=', userId)
      .as('status'),
    eb
      .selectFrom('connections')
      .select('connections.developer_id')
      .where('connections.id', '=', userId)
      .as('developer_id'),
  ] as const;
}

/**
 * A select of the connection's id that takes a key-share lock on its row, for a writer's statement
 * to embed (mobile samples' upsert: one lock per batch statement stands for the foreign key those
 * rows no longer have, migration 0051). No row when the connection is gone or being deleted (the
 * lock waits for the deletion, whose commit leaves nothing to select): the writer writes nothing.
 */
export const connectionHeldForWrite = (userId: string) =>
  sql<{ id: string }>`SELECT id FROM connections WHERE id = ${userId}::uuid FOR KEY SHARE`;

/**
 * The rows that deleting a connection takes with it, per table: every table whose foreign key
 * references `connections` with ON DELETE CASCADE, and every table an `erase_rows_of_connection`
 * trigger on `connections` deletes from (migration 0051: mobile_samples, which has no key), read
 * from the catalog (so a table a later migration adds is counted without naming it here), counted
 * for this connection. Run in the deleting transaction, just before the delete, for the erasure
 * receipt.
 */
export async function countCascadingRows(db: Db, userId: string): Promise<Record<string, number>> {
  // A trigger's arguments (tgargs) are its strings, each ended by a zero byte (table, column),
  // which text cannot hold: the bytes' escaped form has each as \000.
  const { rows: references } = await sql<{ table_name: string; column_name: string }>`
    SELECT c.conrelid::regclass::text AS table_name, a.attname::text AS column_name
    FROM pg_constraint c
    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
    WHERE c.contype = 'f' AND c.confdeltype = 'c' AND c.conparentid = 0
      AND c.confrelid = 'connections'::regclass AND array_length(c.conkey, 1) = 1
    UNION ALL
    SELECT args[1], args[2] FROM (
      SELECT string_to_array(encode(t.tgargs, 'escape'), '\\000') AS args
      FROM pg_trigger t
      WHERE t.tgrelid = 'connections'::regclass AND t.tgnargs = 2
        AND t.tgfoid = 'erase_rows_of_connection'::regproc
    ) erasing
    ORDER BY 1`.execute(db);
  const counts: Record<string, number> = {};
  for (const { table_name, column_name } of references) {
    // regclass text may be schema-qualified ("s.table"): quote each part.
    const table = sql.join(
      table_name.split('.').map((part) => sql.id(part.replace(/^"|"$/g, ''))),
      sql`.`,
    );
    const { rows } = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM ${table} WHERE ${sql.id(column_name)} = ${userId}`.execute(db);
    counts[table_name.split('.').at(-1)!.replace(/^"|"$/g, '')] = Number(rows[0]!.n);
  }
  counts['connections'] = 1;
  return counts;
}

// Hot statements (store/query-template.ts) prepared once per connection instead of on every run.
// node-postgres sends an unnamed statement through Parse on each call, so PostgreSQL parsed and
// analysed a data read's two statements on every request (issue 44: 0.3–0.7 ms of database CPU
// per statement, as much as a bare route's whole query). A named statement is parsed once per
// connection, and PostgreSQL may then reuse its plan.
//
// Kysely hands the pool's client the statement's text and its values; a client of our pools
// (store/db.ts) sends a text registered here under its name instead. Names are per process and
// never reused for another text.
//
// A prepared statement outlives a change of the tables it reads: when another process migrates
// one so that the statement's result columns change (`select *`), PostgreSQL refuses to run it
// ("cached plan must not change result type"). The statement is then dropped on that connection
// and run again, parsed anew, when no transaction is open (in one, the error stands: the
// transaction is already aborted).

import type pg from 'pg';

const names = new Map<string, string>();

/** Marks `text` as a statement to prepare once per connection. Idempotent. */
export function nameStatement(text: string): void {
  if (!names.has(text)) names.set(text, `tributary_hot_${names.size + 1}`);
}

/** The name `text` is prepared under, if it is one of the marked statements. */
export const statementName = (text: string): string | undefined => names.get(text);

/** PostgreSQL's "cached plan must not change result type". */
const RESULT_TYPE_CHANGED = '0A000';

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/** Makes `client` send the marked statements by name (installed on each new connection of a pool). */
export function useNamedStatements(client: pg.ClientBase): void {
  const query = client.query.bind(client) as Query;
  const named: Query = (config, values, callback) => {
    const name =
      typeof config === 'string' && callback === undefined && (values === undefined || Array.isArray(values))
        ? names.get(config)
        : undefined;
    if (name === undefined) return query(config, values, callback);
    return runNamed(client, query, { name, text: config as string, values });
  };
  (client as unknown as { query: Query }).query = named;
}

async function runNamed(
  client: pg.ClientBase,
  query: Query,
  statement: { name: string; text: string; values: unknown },
): Promise<unknown> {
  try {
    return await query(statement);
  } catch (error) {
    if ((error as { code?: string }).code !== RESULT_TYPE_CHANGED) throw error;
    await forget(client, query, statement.name);
    if (client.getTransactionStatus() !== 'I') throw error;
    return query(statement);
  }
}

/** Drops a prepared statement on this connection, so its next run parses it again. */
async function forget(client: pg.ClientBase, query: Query, name: string): Promise<void> {
  const connection = (client as unknown as { connection: { parsedStatements: Record<string, string> } })
    .connection;
  delete connection.parsedStatements[name];
  // In an aborted transaction this fails too; the statement then goes when the connection does.
  await Promise.resolve(query(`DEALLOCATE ${name}`)).catch(() => {});
}

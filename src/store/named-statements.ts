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
// ("cached plan must not change result type"). The connection then moves that statement to its
// next generation, a name it has not used, which node-postgres parses afresh (its own cache of
// parsed names is never touched), drops the old one, and runs it again when no transaction is
// open (in one, the error stands: the transaction is already aborted).

import type pg from 'pg';

const names = new Map<string, string>();

/** Marks `text` as a statement to prepare once per connection. Idempotent. */
export function nameStatement(text: string): void {
  if (!names.has(text)) names.set(text, `tributary_hot_${names.size + 1}`);
}

/** The name `text` is first prepared under on a connection, if it is one of the marked statements. */
export const statementName = (text: string): string | undefined => names.get(text);

/** PostgreSQL's "cached plan must not change result type". */
const RESULT_TYPE_CHANGED = '0A000';

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * The names one connection prepares its statements under: a statement's name, then (once it
 * has to be parsed again) that name with its generation, a name this connection never used.
 */
function connectionNames() {
  const generations = new Map<string, number>();
  const nameOf = (name: string) => {
    const generation = generations.get(name) ?? 0;
    return generation === 0 ? name : `${name}_g${generation}`;
  };
  return {
    nameOf,
    /** Moves `name` to its next generation; returns the name it had. */
    renew(name: string): string {
      const old = nameOf(name);
      generations.set(name, (generations.get(name) ?? 0) + 1);
      return old;
    },
  };
}

/** Makes `client` send the marked statements by name (installed on each new connection of a pool). */
export function sendHotStatementsByName(client: pg.ClientBase): void {
  const query = client.query.bind(client) as Query;
  const own = connectionNames();
  const named: Query = (config, values, callback) => {
    const name =
      typeof config === 'string' && callback === undefined && (values === undefined || Array.isArray(values))
        ? names.get(config)
        : undefined;
    if (name === undefined) return query(config, values, callback);
    return runNamed(client, query, own, { name, text: config as string, values });
  };
  (client as unknown as { query: Query }).query = named;
}

async function runNamed(
  client: pg.ClientBase,
  query: Query,
  own: ReturnType<typeof connectionNames>,
  statement: { name: string; text: string; values: unknown },
): Promise<unknown> {
  const { name, text, values } = statement;
  try {
    return await query({ name: own.nameOf(name), text, values });
  } catch (error) {
    if ((error as { code?: string }).code !== RESULT_TYPE_CHANGED) throw error;
    const old = own.renew(name);
    // In an aborted transaction this fails too; the old statement then goes with the connection.
    await Promise.resolve(query(`DEALLOCATE ${old}`)).catch(() => {});
    if (client.getTransactionStatus() !== 'I') throw error;
    return query({ name: own.nameOf(name), text, values });
  }
}

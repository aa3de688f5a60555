import type { PGlite, Transaction } from '@electric-sql/pglite';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';

/**
 * Kysely over embedded PGlite. PGlite is one connection; its `transaction()` holds an
 * exclusive lock so that every other statement (including pg-boss's own) waits until the
 * transaction ends instead of silently running inside it. Kysely drives BEGIN/COMMIT as
 * separate calls, so a Kysely transaction keeps a PGlite transaction callback open until
 * Kysely commits or rolls back.
 */
class PgliteConnection implements DatabaseConnection {
  #pglite: PGlite;
  #tx: Transaction | null = null;
  #end: ((outcome: 'commit' | 'rollback') => void) | null = null;
  /** Resolves to the error the transaction ended with, or null once it committed or rolled back. */
  #settled: Promise<unknown> | null = null;

  constructor(pglite: PGlite) {
    this.#pglite = pglite;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const target = this.#tx ?? this.#pglite;
    const result = await target.query<R>(query.sql, query.parameters as unknown[]);
    return {
      rows: result.rows,
      ...(result.affectedRows !== undefined ? { numAffectedRows: BigInt(result.affectedRows) } : {}),
    };
  }

  // PGlite has no server-side cursor; callers page with keyset queries instead.
  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported on embedded PGlite; page with keyset queries');
  }

  async begin(): Promise<void> {
    await new Promise<void>((started, failed) => {
      this.#settled = this.#pglite
        .transaction(async (tx) => {
          this.#tx = tx;
          const outcome = await new Promise<'commit' | 'rollback'>((end) => {
            this.#end = end;
            started();
          });
          if (outcome === 'rollback') await tx.rollback();
        })
        .then(
          () => null,
          (error: unknown) => {
            failed(error);
            return error ?? new Error('transaction failed');
          },
        );
    });
  }

  async finish(outcome: 'commit' | 'rollback'): Promise<void> {
    const end = this.#end;
    const settled = this.#settled;
    this.#end = null;
    this.#settled = null;
    this.#tx = null;
    end?.(outcome);
    const error = await settled;
    if (error) throw error;
  }
}

class PgliteDriver implements Driver {
  #pglite: PGlite;
  constructor(pglite: PGlite) {
    this.#pglite = pglite;
  }
  async init(): Promise<void> {
    await this.#pglite.waitReady;
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new PgliteConnection(this.#pglite);
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PgliteConnection).begin();
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PgliteConnection).finish('commit');
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PgliteConnection).finish('rollback');
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

export class PgliteDialect implements Dialect {
  #pglite: PGlite;
  constructor(pglite: PGlite) {
    this.#pglite = pglite;
  }
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver() {
    return new PgliteDriver(this.#pglite);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  // Kysely's introspector is typed over any database.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  createIntrospector(db: any) {
    return new PostgresIntrospector(db);
  }
}

// Change notices between processes that share a store: a writer publishes a notice in the
// transaction that makes the change (PostgreSQL delivers it only if that transaction commits),
// and every process listening on the topic hears it. Caches use it to forget what changed
// elsewhere; a cache must stop answering while its feed is not live, because notices published
// meanwhile are lost.
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { CONNECTION_LOST, faultReporter } from './fault-reporter.ts';
import type { Database } from './schema.ts';

export type ChangeHandlers = {
  /** A notice published on the topic (its payload as published). */
  changed(payload: string): void;
  /**
   * True once every notice published from now on reaches `changed`; false as soon as that is no
   * longer sure (the listening connection is lost). Starts false until the first call.
   */
  live(up: boolean): void;
};

export type ChangeFeed = { close(): Promise<void> };

/** Topics are per schema: test files and tenants sharing one database do not hear each other. */
export function channelOf(topic: string, schema: string): string {
  return `${topic}_${schema}`;
}

/** Publishes a notice; in a transaction, it goes out when (and only if) that transaction commits. */
export async function publishChange(db: Kysely<Database>, topic: string, payload: string): Promise<void> {
  await sql`select pg_notify(${topic} || '_' || current_schema(), ${payload})`.execute(db);
}

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;

/**
 * Listens on PostgreSQL through a connection of its own (a pooled one cannot hold LISTEN), and
 * reconnects with backoff when it is lost. `live(true)` only after LISTEN has been acknowledged,
 * `live(false)` the moment the connection errors or ends.
 */
export function listenOnPostgres(options: {
  connectionString: string;
  channel: string;
  handlers: ChangeHandlers;
  log?: Logger | undefined;
}): ChangeFeed {
  const { handlers, channel } = options;
  const reportLoss = faultReporter(options.log, { source: 'change-feed', message: CONNECTION_LOST });
  let closed = false;
  let client: pg.Client | undefined;
  let retryMs = RETRY_FIRST_MS;
  let timer: NodeJS.Timeout | undefined;

  function retryLater() {
    if (closed) return;
    timer = setTimeout(() => void connect(), retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  }

  function lost(lostClient: pg.Client, error: unknown) {
    if (client !== lostClient) return;
    client = undefined;
    handlers.live(false);
    reportLoss(error);
    lostClient.end().catch(() => {});
    retryLater();
  }

  async function connect() {
    const next = new pg.Client({ connectionString: options.connectionString, keepAlive: true });
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, new Error('listening connection ended')));
    next.on('notification', (message) => {
      if (message.channel === channel) handlers.changed(message.payload ?? '');
    });
    try {
      await next.connect();
      await next.query(`LISTEN "${channel}"`);
    } catch (error) {
      reportLoss(error);
      next.end().catch(() => {});
      retryLater();
      return;
    }
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    retryMs = RETRY_FIRST_MS;
    handlers.live(true);
  }

  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      const current = client;
      client = undefined;
      handlers.live(false);
      await current?.end().catch(() => {});
    },
  };
}

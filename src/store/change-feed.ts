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

/** What the listening session is called in pg_stat_activity (operators, and the tests, find it by it). */
export const CHANGE_FEED_APPLICATION_NAME = 'tributary-change-feed';

export type ChangeListener = {
  /** Hears `channel` (channelOf) until the listener closes; the connection opens on the first call. */
  listen(channel: string, handlers: ChangeHandlers): void;
  close(): Promise<void>;
};

const listenStatement = (channels: Iterable<string>) =>
  [...channels].map((channel) => `LISTEN "${channel}"`).join('; ');

/**
 * Listens on PostgreSQL for every channel of one store through one connection of its own (a
 * pooled one cannot hold LISTEN): each topic on a connection of its own would cost a connection
 * made at every start and an idle backend for as long as the service runs. It reconnects with
 * backoff when the connection is lost, and listens on every channel again. A channel's handlers
 * get `live(true)` only once its LISTEN has been acknowledged, and `live(false)` the moment the
 * connection errors or ends. No connection is made before the first `listen`.
 */
export function listenOnPostgres(options: {
  connectionString: string;
  log?: Logger | undefined;
}): ChangeListener {
  const reportLoss = faultReporter(options.log, { source: 'change-feed', message: CONNECTION_LOST });
  const handlersOf = new Map<string, Set<ChangeHandlers>>();
  // The channels whose LISTEN the current connection has acknowledged.
  const heard = new Set<string>();
  let closed = false;
  let connecting = false;
  let client: pg.Client | undefined;
  let retryMs = RETRY_FIRST_MS;
  let timer: NodeJS.Timeout | undefined;

  const announce = (channel: string, up: boolean) => {
    for (const handlers of handlersOf.get(channel) ?? []) handlers.live(up);
  };

  function retryLater() {
    if (closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  }

  function lost(lostClient: pg.Client, error: unknown) {
    if (client !== lostClient) return;
    client = undefined;
    const wereLive = [...heard];
    heard.clear();
    for (const channel of wereLive) announce(channel, false);
    reportLoss(error);
    lostClient.end().catch(() => {});
    retryLater();
  }

  /** LISTEN on a channel added while the connection is up; a failure is the connection's. */
  function listenOn(current: pg.Client, channels: string[]) {
    current.query(listenStatement(channels)).then(
      () => {
        if (client !== current) return;
        for (const channel of channels) {
          heard.add(channel);
          announce(channel, true);
        }
      },
      (error: unknown) => lost(current, error),
    );
  }

  async function connect() {
    connecting = true;
    const next = new pg.Client({
      connectionString: options.connectionString,
      keepAlive: true,
      application_name: CHANGE_FEED_APPLICATION_NAME,
    });
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, new Error('listening connection ended')));
    next.on('notification', (message) => {
      for (const handlers of handlersOf.get(message.channel) ?? []) handlers.changed(message.payload ?? '');
    });
    const channels = () => [...handlersOf.keys()];
    let listened: string[];
    try {
      await next.connect();
      listened = channels();
      await next.query(listenStatement(listened));
    } catch (error) {
      connecting = false;
      reportLoss(error);
      next.end().catch(() => {});
      retryLater();
      return;
    }
    connecting = false;
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    retryMs = RETRY_FIRST_MS;
    for (const channel of listened) {
      heard.add(channel);
      announce(channel, true);
    }
    // Channels added while the LISTEN above was on its way.
    const added = channels().filter((channel) => !heard.has(channel));
    if (added.length > 0) listenOn(next, added);
  }

  return {
    listen(channel, handlers) {
      if (closed) return;
      const known = handlersOf.get(channel);
      handlersOf.set(channel, (known ?? new Set()).add(handlers));
      if (client && heard.has(channel)) handlers.live(true);
      else if (client && !known) listenOn(client, [channel]);
      // Otherwise the connection being made (or the next retry) listens on it with the others.
      else if (!client && !connecting && timer === undefined) void connect();
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      const current = client;
      client = undefined;
      heard.clear();
      for (const channel of handlersOf.keys()) announce(channel, false);
      await current?.end().catch(() => {});
    },
  };
}

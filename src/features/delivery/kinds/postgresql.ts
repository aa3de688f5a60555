// The PostgreSQL destination: Tributary connects to the developer's database (`settings.url`)
// and keeps tables it owns in one schema there (`settings.schema`, default `tributary`): one per
// data type, `users` and `events`. It creates and migrates them itself (versions in
// `<schema>.schema_migrations`, under an advisory lock, so two workers never migrate at once).
// A batch of events is one transaction (a few statements for the whole batch): the event rows,
// their users, and their records upserted by record identity (the unified model's identity key,
// as Tributary's own store keys them), so a day sent again updates rows instead of adding them;
// an older event never overwrites what a newer one wrote; a `deauth` or `access_revoked` deletes
// the user's records (docs/destinations.md). One event the database refuses fails the batch's
// transaction; its events are then written one at a time, so only that one is rejected.
// The URL is read as data (postgresql-url.ts) and pg gets a config object, never the string; the
// host is resolved, checked and pinned when a pool is made (destination-policy.ts `dialAddress`),
// and a destination that is the service's own database is refused then too (own-database.ts).
//
// Its parts: postgresql-settings.ts (the settings), postgresql-pool.ts (the connection),
// postgresql-tables.ts (the tables and their migrations), postgresql-statements.ts (the writes).
// This module is the kind: a batch's transaction, in order, and the one-at-a-time fallback.
import { type DestinationKind, describeFailure, type KindEvent, type KindResult } from './kind.ts';
import { classifyPgError, createPostgresqlPool } from './postgresql-pool.ts';
import {
  parsePostgresqlSettings,
  type PostgresqlSettings,
  viewPostgresqlSettings,
} from './postgresql-settings.ts';
import { createStatements, ENDS_USER, type Parsed } from './postgresql-statements.ts';
import { migrateTables } from './postgresql-tables.ts';

export { classifyPgError } from './postgresql-pool.ts';
export { type PostgresqlSettings, PostgresqlSettingsSchema } from './postgresql-settings.ts';
export { RECORD_TABLES } from './postgresql-tables.ts';

export const postgresqlKind: DestinationKind<PostgresqlSettings> = {
  kind: 'postgresql',

  parse: parsePostgresqlSettings,

  view: viewPostgresqlSettings,

  target: (settings) => `${postgresqlKind.view(settings).url as string}#${settings.schema}`,

  connect(settings, options) {
    const { openPool, inTransaction, destroySockets, close } = createPostgresqlPool(settings, options);
    const { insertEvents, applyEvent, applyUsers, applyRecords } = createStatements(settings.schema);
    let migrated: Promise<void> | null = null;
    const migrate = () => migrateTables(openPool, settings);

    /**
     * Events in one transaction, in their order: the event rows in one statement, then runs of
     * events that end no user in a few statements each (users, then each table's records), and
     * an event that ends its user on its own between them, so what it deletes and what follows
     * it come out as one event at a time would leave them. Idempotent by event id and record
     * identity: the batch sent again (a retry, after a crash) changes nothing.
     */
    async function write(items: readonly Parsed[]): Promise<void> {
      await inTransaction(async (client) => {
        await insertEvents(client, items);
        let run: Parsed[] = [];
        const flush = async () => {
          if (run.length === 0) return;
          await applyUsers(client, run);
          await applyRecords(client, run);
          run = [];
        };
        for (const item of items) {
          if (!ENDS_USER.has(item.event.type)) {
            run.push(item);
            continue;
          }
          await flush();
          await applyEvent(client, item);
        }
        await flush();
      });
    }

    /** The events' payloads as objects; one that is not an object can never be stored (`rejected`). */
    function parse(events: readonly KindEvent[]): (Parsed | KindResult)[] {
      return events.map((event) => {
        try {
          const parsed: unknown = JSON.parse(event.body);
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
            throw new Error('not an object');
          return { event, payload: parsed as Record<string, unknown> };
        } catch (error) {
          return { outcome: 'rejected', error: `payload is not a JSON object: ${describeFailure(error)}` };
        }
      });
    }

    /** Writes the events as one transaction; the outcome is theirs alike. */
    async function deliver(items: readonly Parsed[]): Promise<KindResult> {
      try {
        migrated ??= migrate().catch((error: unknown) => {
          migrated = null;
          throw error;
        });
        await migrated;
        await write(items);
        return { outcome: 'delivered', error: null };
      } catch (error) {
        // Tables dropped on the developer's side: they are created again on the next attempt.
        if ((error as { code?: unknown }).code === '42P01') migrated = null;
        return { outcome: classifyPgError(error), error: describeFailure(error) };
      }
    }

    async function sendAll(events: readonly KindEvent[], signal: AbortSignal): Promise<KindResult[]> {
      if (signal.aborted)
        return events.map(() => ({ outcome: 'retry', error: 'deadline passed before sending' }));
      signal.addEventListener('abort', destroySockets, { once: true });
      try {
        const parsed = parse(events);
        const items = parsed.filter((item): item is Parsed => 'payload' in item);
        const together = items.length > 0 ? await deliver(items) : null;
        const results = new Map<Parsed, KindResult>(items.map((item) => [item, together!]));
        // One event the database refuses (a data error) fails the whole transaction: then each is
        // written alone, so only that one is rejected.
        if (together?.outcome === 'rejected' && items.length > 1) {
          for (const item of items) {
            if (signal.aborted) break;
            results.set(item, await deliver([item]));
          }
        }
        return parsed.map((item) => ('payload' in item ? results.get(item)! : item));
      } finally {
        signal.removeEventListener('abort', destroySockets);
      }
    }

    return {
      async send(event, signal) {
        return (await sendAll([event], signal))[0]!;
      },
      sendBatch: sendAll,
      close,
    };
  },
};

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
import { createHash } from 'node:crypto';
import { Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import pg from 'pg';
import Type from 'typebox';
import { invalidParameter } from '../../../core/errors.ts';
import { type DataTypeName, identityKeyOf } from '../../../model/index.ts';
import {
  addressesOf,
  checkHostAllowed,
  DestinationBlockedError,
  dialAddress,
} from '../destination-policy.ts';
import { ownDatabaseReason } from '../own-database.ts';
import {
  type DestinationKind,
  describeFailure,
  type KindEvent,
  type KindResult,
  MAX_PEM_CHARS,
  pemSetting,
  settingsChecker,
  stringSetting,
} from './kind.ts';
import { canonicalUrl, parsePostgresqlUrl, type PostgresqlTarget } from './postgresql-url.ts';

/** `url` is the canonical URL (postgresql-url.ts), password included: the settings are stored sealed. */
export type PostgresqlSettings = {
  url: string;
  schema: string;
  /** PEM text: the certificates the server's must chain to (sslmode verify-ca / verify-full). */
  tls_ca?: string;
  /** PEM text: a client certificate and its unencrypted key, for servers that ask for one. */
  tls_cert?: string;
  tls_key?: string;
};

/** The record tables, by the data event's `type` on the wire, with the model type keying their records. */
export const RECORD_TABLES: Readonly<Record<string, DataTypeName>> = {
  activity: 'activity',
  body: 'body',
  daily: 'daily',
  hormone: 'hormone',
  menstruation: 'menstruation',
  nutrition: 'nutrition',
  planned_workout: 'plannedWorkout',
  sleep: 'sleep',
};

/** Events after which the user's records are deleted (the user ended the connection). */
const ENDS_USER = new Set(['deauth', 'access_revoked']);

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The migrations of the tables Tributary owns in the developer's database, in order. Released
 * ones are never edited: a change is a new entry (the schema's `schema_migrations` says which ran).
 */
function migrationsFor(schema: string): string[][] {
  const s = `"${schema}"`;
  const recordTables = Object.keys(RECORD_TABLES).map(
    (table) => `
      CREATE TABLE ${s}."${table}" (
        user_id text NOT NULL,
        record_id text NOT NULL,
        record jsonb NOT NULL,
        event_id text NOT NULL,
        event_created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, record_id)
      )`,
  );
  return [
    [
      `CREATE TABLE ${s}.events (
        event_id text PRIMARY KEY,
        developer_id text NOT NULL,
        type text NOT NULL,
        user_id text,
        created_at timestamptz NOT NULL,
        payload jsonb NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX events_by_user ON ${s}.events (user_id, created_at)`,
      `CREATE TABLE ${s}.users (
        user_id text PRIMARY KEY,
        provider text,
        reference_id text,
        active boolean,
        "user" jsonb NOT NULL,
        event_created_at timestamptz NOT NULL,
        deauthenticated_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE TABLE ${s}.athlete (
        user_id text PRIMARY KEY,
        athlete jsonb NOT NULL,
        event_id text NOT NULL,
        event_created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      ...recordTables,
    ],
  ];
}

/** SQLSTATE classes that mean this event can never be stored as it is: data exceptions, integrity. */
const REJECTING_CLASSES = new Set(['22', '23']);

export function classifyPgError(error: unknown): KindResult['outcome'] {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && REJECTING_CLASSES.has(code.slice(0, 2)))
    return 'rejected';
  // Connection refused or reset, a terminated backend (57P01), a database renamed or gone (3D000),
  // connect revoked (42501), authentication failed (28xxx), a statement timeout: the developer's
  // side may recover or be fixed, so the retry schedule applies (and then failing / disabled).
  return 'retry';
}

/** The record's identity: the model's key where the record has it, else a digest of the record. */
function recordId(modelType: DataTypeName, record: unknown): string {
  try {
    const key = identityKeyOf(modelType, record as never);
    if (typeof key === 'string' && key.length > 0) return key;
  } catch {
    // A record without the key's fields (the wire form of a planned workout wraps it): digest below.
  }
  return `sha256:${createHash('sha256').update(JSON.stringify(record)).digest('hex')}`;
}

type UserObject = { user_id: string; provider?: unknown; reference_id?: unknown; active?: unknown };

/** An event with its payload read. */
type Parsed = { event: KindEvent; payload: Record<string, unknown> };

/** A user's row updated by a newer event (never by an older one); a deauthentication is kept. */
const USER_UPDATE = `provider = EXCLUDED.provider, reference_id = EXCLUDED.reference_id,
  active = EXCLUDED.active, "user" = EXCLUDED."user", event_created_at = EXCLUDED.event_created_at,
  deauthenticated_at = GREATEST(u.deauthenticated_at, EXCLUDED.deauthenticated_at), updated_at = now()
  WHERE u.event_created_at <= EXCLUDED.event_created_at`;

/** The user's columns: id, provider, reference id, active, the user as JSON. */
function userColumns(user: UserObject): [string, string | null, string | null, boolean | null, string] {
  return [
    user.user_id,
    typeof user.provider === 'string' ? user.provider : null,
    typeof user.reference_id === 'string' ? user.reference_id : null,
    typeof user.active === 'boolean' ? user.active : null,
    JSON.stringify(user),
  ];
}

function userOf(payload: Record<string, unknown>): UserObject | null {
  const user = payload.user;
  if (typeof user !== 'object' || user === null || Array.isArray(user)) return null;
  const id = (user as { user_id?: unknown }).user_id;
  return typeof id === 'string' ? (user as UserObject) : null;
}

/**
 * pg's TLS options for the sslmode (libpq's meanings): `require` encrypts without checking the
 * server (unless a CA is given, as libpq does with a root certificate), `verify-ca` checks the
 * chain, `verify-full` the chain and the host name. The host is dialled by address, so the name
 * to check goes as `servername`.
 */
function sslOptions(settings: PostgresqlSettings, target: PostgresqlTarget): false | ConnectionOptions {
  const mode = target.sslmode ?? (settings.tls_ca ? 'verify-full' : 'disable');
  if (mode === 'disable') return false;
  const material: ConnectionOptions = {
    ...(settings.tls_ca ? { ca: settings.tls_ca } : {}),
    ...(settings.tls_cert && settings.tls_key ? { cert: settings.tls_cert, key: settings.tls_key } : {}),
    servername: target.host,
  };
  if (mode === 'require' && !settings.tls_ca) return { ...material, rejectUnauthorized: false };
  if (mode === 'verify-full') return { ...material, rejectUnauthorized: true };
  // verify-ca (or require with a CA): the chain, not the name.
  return { ...material, rejectUnauthorized: true, checkServerIdentity: () => undefined };
}

/** Reads stored settings again with today's rules (a row saved before them may carry a refused URL). */
function targetOf(settings: PostgresqlSettings): PostgresqlTarget {
  try {
    return parsePostgresqlUrl(settings.url);
  } catch (error) {
    throw new DestinationBlockedError(
      `the stored settings are refused (${(error as Error).message}); change them with PATCH /v2/destinations/{id}`,
    );
  }
}

const SCHEMA_HINT = 'expected a lower-case SQL identifier (letters, digits, _; at most 63)';
const Pem = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: MAX_PEM_CHARS, description }));

/** The settings of a postgresql destination as the API takes them (validation, OpenAPI and packages/client). */
export const PostgresqlSettingsSchema = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'postgres://user:password@host:5432/database (sslmode in the query string)',
      examples: ['postgres://tributary:secret@db.example.com:5432/analytics'],
    }),
    schema: Type.Optional(
      Type.String({
        pattern: SCHEMA_NAME.source,
        minLength: 1,
        maxLength: 63,
        description: 'Schema of the tables; default tributary',
      }),
    ),
    tls_ca: Pem("PEM certificates the server's certificate must chain to"),
    tls_cert: Pem('PEM client certificate (with tls_key)'),
    tls_key: Pem('PEM unencrypted private key of tls_cert'),
  },
  {
    additionalProperties: false,
    title: 'PostgresqlSettings',
    description: 'kind postgresql: one row per event',
  },
);

const checkSettings = settingsChecker(PostgresqlSettingsSchema, { hints: { schema: SCHEMA_HINT } });

export const postgresqlKind: DestinationKind<PostgresqlSettings> = {
  kind: 'postgresql',

  async parse(input, policy) {
    const settings = checkSettings(input);
    const raw = stringSetting(settings, 'url', { required: true })!;
    const target = parsePostgresqlUrl(raw);
    const schema =
      stringSetting(settings, 'schema', {
        pattern: SCHEMA_NAME,
        hint: SCHEMA_HINT,
      }) ?? 'tributary';
    const tlsCa = pemSetting(settings, 'tls_ca', 'certificates');
    const tlsCert = pemSetting(settings, 'tls_cert', 'certificates');
    const tlsKey = pemSetting(settings, 'tls_key', 'private key');
    if (Boolean(tlsCert) !== Boolean(tlsKey))
      throw invalidParameter(
        tlsCert ? 'settings.tls_key' : 'settings.tls_cert',
        'tls_cert and tls_key go together',
      );
    if ((target.sslmode === 'verify-ca' || target.sslmode === 'verify-full') && !tlsCa)
      throw invalidParameter('settings.tls_ca', `required with sslmode=${target.sslmode}`);
    const blocked = await checkHostAllowed(target.host, policy.environment, policy.resolve);
    if (blocked) throw invalidParameter('settings.url', blocked);
    // (A name that does not resolve now is not the service's database now; connecting checks again.)
    const addresses = await addressesOf(target.host, policy.resolve);
    const own = await ownDatabaseReason({ addresses, ...target }, policy.ownDatabases, policy.resolve);
    if (own) throw invalidParameter('settings.url', own);
    return {
      url: canonicalUrl(target, 'include'),
      schema,
      ...(tlsCa ? { tls_ca: tlsCa } : {}),
      ...(tlsCert && tlsKey ? { tls_cert: tlsCert, tls_key: tlsKey } : {}),
    };
  },

  view(settings) {
    let url: string;
    try {
      url = canonicalUrl(parsePostgresqlUrl(settings.url), 'mask');
    } catch {
      url = '(refused: change it)';
    }
    return {
      url,
      schema: settings.schema,
      ...(settings.tls_ca ? { tls_ca: true } : {}),
      ...(settings.tls_cert ? { tls_cert: true } : {}),
    };
  },

  target: (settings) => `${postgresqlKind.view(settings).url as string}#${settings.schema}`,

  connect(settings, options) {
    const { log } = options;
    /** Every socket this connection's pool opened, so a deadline can tear them down (pg has no abort). */
    const sockets = new Set<Socket>();
    let pool: pg.Pool | null = null;
    let opening: Promise<pg.Pool> | null = null;

    async function makePool(): Promise<pg.Pool> {
      const target = targetOf(settings);
      const pinned = await dialAddress(target.host, options.environment, options.resolve);
      const own = await ownDatabaseReason(
        { addresses: [pinned], ...target },
        options.ownDatabases,
        options.resolve,
      );
      if (own) throw new DestinationBlockedError(own);
      const made = new pg.Pool({
        host: pinned.address,
        port: target.port,
        database: target.database,
        user: target.user,
        // A function, so pg never falls back to PGPASSWORD or a ~/.pgpass file of this server.
        password: async () => target.password ?? '',
        ssl: sslOptions(settings, target),
        stream: () => {
          const socket = new Socket();
          sockets.add(socket);
          socket.once('close', () => sockets.delete(socket));
          return socket;
        },
        max: 4,
        connectionTimeoutMillis: Math.min(
          options.connectTimeoutMs,
          (target.connectTimeout ?? Number.POSITIVE_INFINITY) * 1000,
        ),
        idleTimeoutMillis: 30_000,
        statement_timeout: 30_000,
        application_name: target.applicationName ?? 'tributary-destination',
      });
      // A client the server drops while idle (restart, pg_terminate_backend) errors on the pool;
      // it is discarded and the next send connects again.
      made.on('error', (error) =>
        log.warn({ err: describeFailure(error) }, 'destination database connection lost'),
      );
      pool = made;
      return made;
    }

    function openPool(): Promise<pg.Pool> {
      opening ??= makePool().catch((error: unknown) => {
        opening = null;
        throw error;
      });
      return opening;
    }

    const s = `"${settings.schema}"`;
    let migrated: Promise<void> | null = null;

    async function migrate(): Promise<void> {
      const client = await (await openPool()).connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
          `tributary-destination:${settings.schema}`,
        ]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
        );
        const done = await client.query<{ version: number }>(`SELECT version FROM ${s}.schema_migrations`);
        const applied = new Set(done.rows.map((row) => Number(row.version)));
        const steps = migrationsFor(settings.schema);
        for (let index = 0; index < steps.length; index++) {
          const version = index + 1;
          if (applied.has(version)) continue;
          for (const statement of steps[index]!) await client.query(statement);
          await client.query(`INSERT INTO ${s}.schema_migrations (version) VALUES ($1)`, [version]);
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    }

    /** One transaction on a pooled client; a client whose connection failed is destroyed, not returned. */
    async function inTransaction(body: (client: pg.PoolClient) => Promise<void>): Promise<void> {
      const client = await (await openPool()).connect();
      let broken: unknown = undefined;
      try {
        await client.query('BEGIN');
        await body(client);
        await client.query('COMMIT');
      } catch (error) {
        broken = error;
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release(
          broken !== undefined && classifyPgError(broken) === 'retry' ? (broken as Error) : undefined,
        );
      }
    }

    /** The events' rows, one statement; an event already stored (a retry, a replay) is left as it is. */
    async function insertEvents(client: pg.PoolClient, items: readonly Parsed[]): Promise<void> {
      await client.query(
        `INSERT INTO ${s}.events (event_id, developer_id, type, user_id, created_at, payload)
         SELECT r.id, r.developer_id, r.type, r.user_id, r.created_at, r.payload::jsonb
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[])
           AS r (id, developer_id, type, user_id, created_at, payload)
         ON CONFLICT (event_id) DO NOTHING`,
        [
          items.map(({ event }) => event.id),
          items.map(({ event }) => event.developerId),
          items.map(({ event }) => event.type),
          items.map(({ event }) => event.userId),
          items.map(({ event }) => event.createdAt),
          items.map(({ event }) => event.body),
        ],
      );
    }

    /**
     * What one event does to the user's rows, as its own statements: its user, and for an event
     * that ends the user, the deletion of what events up to it wrote (then its records, if any).
     */
    async function applyEvent(client: pg.PoolClient, { event, payload }: Parsed): Promise<void> {
      const user = userOf(payload);
      if (!user) return;
      const ends = ENDS_USER.has(event.type);
      await client.query(
        `INSERT INTO ${s}.users AS u (user_id, provider, reference_id, active, "user", event_created_at, deauthenticated_at)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, CASE WHEN $7::boolean THEN $6::timestamptz END)
         ON CONFLICT (user_id) DO UPDATE SET ${USER_UPDATE}`,
        [...userColumns(user), event.createdAt, ends],
      );
      if (ends) {
        // The user's records go: everything an event up to this one wrote.
        for (const table of [...Object.keys(RECORD_TABLES), 'athlete']) {
          await client.query(`DELETE FROM ${s}."${table}" WHERE user_id = $1 AND event_created_at <= $2`, [
            user.user_id,
            event.createdAt,
          ]);
        }
      }
      await applyRecords(client, [{ event, payload }]);
    }

    /**
     * The users of events that end no user, one statement: each user's newest version (the later
     * event on a tie, as one statement per event in order would leave it). An older event never
     * overwrites a newer one's, as with one event at a time.
     */
    async function applyUsers(client: pg.PoolClient, items: readonly Parsed[]): Promise<void> {
      const newest = new Map<string, { user: UserObject; at: Date }>();
      for (const { event, payload } of items) {
        const user = userOf(payload);
        if (!user) continue;
        const seen = newest.get(user.user_id);
        if (!seen || seen.at <= event.createdAt) newest.set(user.user_id, { user, at: event.createdAt });
      }
      if (newest.size === 0) return;
      const rows = [...newest.values()].map(({ user, at }) => [...userColumns(user), at] as const);
      await client.query(
        `INSERT INTO ${s}.users AS u (user_id, provider, reference_id, active, "user", event_created_at)
         SELECT r.user_id, r.provider, r.reference_id, r.active, r.u::jsonb, r.at
         FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[], $5::text[], $6::timestamptz[])
           AS r (user_id, provider, reference_id, active, u, at)
         ON CONFLICT (user_id) DO UPDATE SET ${USER_UPDATE}`,
        [0, 1, 2, 3, 4, 5].map((column) => rows.map((row) => row[column])),
      );
    }

    /**
     * The events' records (by record identity) and athletes, one statement per table: each row's
     * newest version, written unless its user was deauthenticated at or after it (a replay). The
     * newest is the one to check: a user deauthenticated after it was after the older ones too.
     */
    async function applyRecords(client: pg.PoolClient, items: readonly Parsed[]): Promise<void> {
      type Row = { userId: string; recordId: string; json: string; eventId: string; at: Date };
      const tables = new Map<string, Map<string, Row>>();
      const keep = (table: string, row: Row) => {
        let rows = tables.get(table);
        if (!rows) tables.set(table, (rows = new Map()));
        const key = `${row.userId}\u0000${row.recordId}`;
        const seen = rows.get(key);
        if (!seen || seen.at <= row.at) rows.set(key, row);
      };
      for (const { event, payload } of items) {
        const user = userOf(payload);
        if (!user) continue;
        const modelType = RECORD_TABLES[event.type];
        if (modelType && Array.isArray(payload.data)) {
          for (const record of payload.data) {
            const json = JSON.stringify(record);
            keep(event.type, {
              userId: user.user_id,
              recordId: recordId(modelType, record),
              json,
              eventId: event.id,
              at: event.createdAt,
            });
          }
        }
        const athlete = payload.athlete;
        if (event.type === 'athlete' && typeof athlete === 'object' && athlete !== null)
          keep('athlete', {
            userId: user.user_id,
            recordId: '',
            json: JSON.stringify(athlete),
            eventId: event.id,
            at: event.createdAt,
          });
      }
      const live = `NOT EXISTS (SELECT 1 FROM ${s}.users d WHERE d.user_id = r.user_id AND d.deauthenticated_at >= r.at)`;
      for (const [table, byKey] of tables) {
        const rows = [...byKey.values()];
        const columns = [
          rows.map((row) => row.userId),
          rows.map((row) => row.json),
          rows.map((row) => row.eventId),
          rows.map((row) => row.at),
        ];
        if (table === 'athlete') {
          await client.query(
            `INSERT INTO ${s}.athlete AS t (user_id, athlete, event_id, event_created_at)
             SELECT r.user_id, r.athlete::jsonb, r.event_id, r.at
             FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) AS r (user_id, athlete, event_id, at)
             WHERE ${live}
             ON CONFLICT (user_id) DO UPDATE SET athlete = EXCLUDED.athlete, event_id = EXCLUDED.event_id,
               event_created_at = EXCLUDED.event_created_at, updated_at = now()
             WHERE t.event_created_at <= EXCLUDED.event_created_at`,
            columns,
          );
        } else {
          await client.query(
            `INSERT INTO ${s}."${table}" AS t (user_id, record_id, record, event_id, event_created_at)
             SELECT r.user_id, r.record_id, r.record::jsonb, r.event_id, r.at
             FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[])
               AS r (user_id, record, event_id, at, record_id)
             WHERE ${live}
             ON CONFLICT (user_id, record_id) DO UPDATE SET record = EXCLUDED.record, event_id = EXCLUDED.event_id,
               event_created_at = EXCLUDED.event_created_at, updated_at = now()
             WHERE t.event_created_at <= EXCLUDED.event_created_at`,
            [...columns, rows.map((row) => row.recordId)],
          );
        }
      }
    }

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

    /** Tears down every socket at once: the deadline passed, or the connection is being closed. */
    // (Every send of this connection loses its socket then: the engine closes the connection after
    // a deadline anyway, and they all wait on the same unanswering server.)
    function destroySockets() {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
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
      async close() {
        const current = pool;
        pool = null;
        opening = null;
        destroySockets();
        await current?.end().catch(() => undefined);
      },
    };
  },
};

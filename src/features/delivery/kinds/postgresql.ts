// The PostgreSQL destination: Tributary connects to the developer's database (`settings.url`)
// and keeps tables it owns in one schema there (`settings.schema`, default `tributary`): one per
// data type, `users` and `events`. It creates and migrates them itself (versions in
// `<schema>.schema_migrations`, under an advisory lock, so two workers never migrate at once).
// Every event is one transaction: the event row, its user, and its records upserted by record
// identity (the unified model's identity key, as Tributary's own store keys them), so a day
// sent again updates rows instead of adding them; an older event never overwrites what a newer
// one wrote; a `deauth` or `access_revoked` deletes the user's records (docs/destinations.md).
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

    async function write(event: KindEvent, payload: Record<string, unknown>): Promise<void> {
      const client = await (await openPool()).connect();
      let broken: unknown = undefined;
      try {
        await client.query('BEGIN');
        await client.query(
          `INSERT INTO ${s}.events (event_id, developer_id, type, user_id, created_at, payload)
           VALUES ($1, $2, $3, $4, $5, $6::jsonb) ON CONFLICT (event_id) DO NOTHING`,
          [event.id, event.developerId, event.type, event.userId, event.createdAt, event.body],
        );
        const user = userOf(payload);
        if (user) {
          const ends = ENDS_USER.has(event.type);
          await client.query(
            `INSERT INTO ${s}.users AS u (user_id, provider, reference_id, active, "user", event_created_at, deauthenticated_at)
             VALUES ($1, $2, $3, $4, $5::jsonb, $6, CASE WHEN $7::boolean THEN $6::timestamptz END)
             ON CONFLICT (user_id) DO UPDATE SET provider = EXCLUDED.provider, reference_id = EXCLUDED.reference_id,
               active = EXCLUDED.active, "user" = EXCLUDED."user", event_created_at = EXCLUDED.event_created_at,
               deauthenticated_at = GREATEST(u.deauthenticated_at, EXCLUDED.deauthenticated_at), updated_at = now()
             WHERE u.event_created_at <= EXCLUDED.event_created_at`,
            [
              user.user_id,
              typeof user.provider === 'string' ? user.provider : null,
              typeof user.reference_id === 'string' ? user.reference_id : null,
              typeof user.active === 'boolean' ? user.active : null,
              JSON.stringify(user),
              event.createdAt,
              ends,
            ],
          );
          if (ends) {
            // The user's records go: everything an event up to this one wrote.
            for (const table of [...Object.keys(RECORD_TABLES), 'athlete']) {
              await client.query(
                `DELETE FROM ${s}."${table}" WHERE user_id = $1 AND event_created_at <= $2`,
                [user.user_id, event.createdAt],
              );
            }
          }
          // Records of a user deauthenticated at or after this event are not written again (a replay).
          const live = `NOT EXISTS (SELECT 1 FROM ${s}.users d WHERE d.user_id = $1 AND d.deauthenticated_at >= $4)`;
          const modelType = RECORD_TABLES[event.type];
          if (modelType && Array.isArray(payload.data) && payload.data.length > 0) {
            const byId = new Map<string, string>();
            for (const record of payload.data) byId.set(recordId(modelType, record), JSON.stringify(record));
            await client.query(
              `INSERT INTO ${s}."${event.type}" AS t (user_id, record_id, record, event_id, event_created_at)
               SELECT $1, r.id, r.record::jsonb, $2, $4 FROM unnest($3::text[], $5::text[]) AS r (id, record)
               WHERE ${live}
               ON CONFLICT (user_id, record_id) DO UPDATE SET record = EXCLUDED.record, event_id = EXCLUDED.event_id,
                 event_created_at = EXCLUDED.event_created_at, updated_at = now()
               WHERE t.event_created_at <= EXCLUDED.event_created_at`,
              [user.user_id, event.id, [...byId.keys()], event.createdAt, [...byId.values()]],
            );
          }
          const athlete = payload.athlete;
          if (event.type === 'athlete' && typeof athlete === 'object' && athlete !== null) {
            await client.query(
              `INSERT INTO ${s}.athlete AS t (user_id, athlete, event_id, event_created_at)
               SELECT $1, $2::jsonb, $3, $4 WHERE ${live}
               ON CONFLICT (user_id) DO UPDATE SET athlete = EXCLUDED.athlete, event_id = EXCLUDED.event_id,
                 event_created_at = EXCLUDED.event_created_at, updated_at = now()
               WHERE t.event_created_at <= EXCLUDED.event_created_at`,
              [user.user_id, JSON.stringify(athlete), event.id, event.createdAt],
            );
          }
        }
        await client.query('COMMIT');
      } catch (error) {
        broken = error;
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        // A client whose connection failed is destroyed rather than returned to the pool.
        client.release(
          broken !== undefined && classifyPgError(broken) === 'retry' ? (broken as Error) : undefined,
        );
      }
    }

    /** Tears down every socket at once: the deadline passed, or the connection is being closed. */
    // (Every send of this connection loses its socket then: the engine closes the connection after
    // a deadline anyway, and they all wait on the same unanswering server.)
    function destroySockets() {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    }

    return {
      async send(event, signal) {
        if (signal.aborted) return { outcome: 'retry', error: 'deadline passed before sending' };
        signal.addEventListener('abort', destroySockets, { once: true });
        let payload: Record<string, unknown>;
        try {
          const parsed: unknown = JSON.parse(event.body);
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
            throw new Error('not an object');
          payload = parsed as Record<string, unknown>;
        } catch (error) {
          return { outcome: 'rejected', error: `payload is not a JSON object: ${describeFailure(error)}` };
        }
        try {
          migrated ??= migrate().catch((error: unknown) => {
            migrated = null;
            throw error;
          });
          await migrated;
          await write(event, payload);
          return { outcome: 'delivered', error: null };
        } catch (error) {
          // Tables dropped on the developer's side: they are created again on the next attempt.
          if ((error as { code?: unknown }).code === '42P01') migrated = null;
          return { outcome: classifyPgError(error), error: describeFailure(error) };
        } finally {
          signal.removeEventListener('abort', destroySockets);
        }
      },
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

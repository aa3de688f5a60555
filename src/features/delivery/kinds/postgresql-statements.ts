// The statements that write events into a PostgreSQL destination's tables: the event rows, the
// users and the records (upserted by record identity, an older event never overwriting a newer
// one's) for a run of events in a few statements, and an event that ends its user (`deauth`,
// `access_revoked`) on its own. Separate from the order they run in and the transaction around
// them (postgresql.ts) and from the connection (postgresql-pool.ts).
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { type DataTypeName, identityKeyOf } from '../../../model/index.ts';
import type { KindEvent } from './kind.ts';
import { RECORD_TABLES } from './postgresql-tables.ts';

/** Events after which the user's records are deleted (the user ended the connection). */
export const ENDS_USER = new Set(['deauth', 'access_revoked']);

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
export type Parsed = { event: KindEvent; payload: Record<string, unknown> };

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

export function createStatements(schema: string) {
  const s = `"${schema}"`;

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

  return { insertEvents, applyEvent, applyUsers, applyRecords };
}

// Data access for destinations (`webhook_destinations`): kind, settings, target, signing secrets,
// event type filter and health. Every destination is found by its id; a developer's primary webhook
// (one each, what `/v2/webhook` names) also by its developer, and the engine finds where events go
// (`findRoutes`).
import { newUuid } from '../../core/ids.ts';
import { type ExpressionBuilder, sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { Database } from '../../store/schema.ts';
import type { WebhookEnvironment } from './destination-policy.ts';
import type { DestinationStatus } from './tables.ts';

export type DestinationRow = {
  id: string;
  developer_id: string;
  kind: string;
  /** Sealed JSON (other kinds); null for the webhook. */
  settings: string | null;
  name: string | null;
  secondary: boolean;
  /** The event types it receives; null: every one. */
  event_types: string[] | null;
  environment: WebhookEnvironment;
  url: string | null;
  secret: string | null;
  suspended_at: Date | null;
  status: DestinationStatus;
  consecutive_failures: number;
  failing_since: Date | null;
  disabled_at: Date | null;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  created_at: Date;
};

export const columns = [
  'id',
  'developer_id',
  'kind',
  'settings',
  'name',
  'secondary',
  'event_types',
  'environment',
  'url',
  'secret',
  'suspended_at',
  'status',
  'consecutive_failures',
  'failing_since',
  'disabled_at',
  'last_success_at',
  'last_failure_at',
  'created_at',
] as const;

export const WEBHOOK_KIND = 'webhook';

/** A developer's destinations with every column, optionally locked until the caller's transaction ends. */
function destinationsOf(db: Db, developerId: string, lock = false) {
  return db
    .selectFrom('webhook_destinations')
    .select(columns)
    .where('developer_id', '=', developerId)
    .$if(lock, (query) => query.forUpdate());
}

/** The developer's primary webhook: the one `/v2/webhook` names, whose deliveries carry no destination id. */
export function isPrimary(row: { kind: string; secondary: boolean }): boolean {
  return row.kind === WEBHOOK_KIND && !row.secondary;
}

/** `isPrimary` as a query's condition. */
function isPrimaryWebhook(eb: ExpressionBuilder<Database, 'webhook_destinations'>) {
  return eb.and([eb('kind', '=', WEBHOOK_KIND), eb('secondary', '=', false)]);
}

/** Whose deliveries are the destination's: the primary webhook's carry no destination id (migration 0042), the others' their own. */
export function deliveryKey(row: { id: string; kind: string; secondary: boolean }): string | null {
  return isPrimary(row) ? null : row.id;
}

/**
 * A new destination: the developer's primary webhook (made with the developer, no URL yet: events
 * are held until one is set), a secondary webhook, or another kind with its sealed settings. A
 * webhook's one setting, its URL, is kept as the target, with a sealed signing secret.
 */
export async function insertDestination(
  db: Db,
  row: {
    id?: string;
    developerId: string;
    environment: WebhookEnvironment;
    kind: string;
    primary?: boolean;
    name?: string | null;
    sealedSettings?: string | null;
    sealedSecret?: string | null;
    target?: string | null;
    eventTypes?: string[] | null;
  },
): Promise<void> {
  await db
    .insertInto('webhook_destinations')
    .values({
      id: row.id ?? newUuid(),
      developer_id: row.developerId,
      environment: row.environment,
      kind: row.kind,
      name: row.name ?? null,
      settings: row.sealedSettings ?? null,
      url: row.target ?? null,
      secret: row.sealedSecret ?? null,
      secondary: row.kind === WEBHOOK_KIND && !row.primary,
      event_types: row.eventTypes ?? null,
      suspended_at: null,
      failing_since: null,
      disabled_at: null,
      last_success_at: null,
      last_failure_at: null,
    })
    .execute();
}

/** The developer's primary webhook (what `/v2/webhook` names), optionally locked until the caller's transaction ends. */
export async function findPrimary(
  db: Db,
  developerId: string,
  lock = false,
): Promise<DestinationRow | undefined> {
  return destinationsOf(db, developerId, lock).where(isPrimaryWebhook).executeTakeFirst();
}

/** The primary webhooks of the given developers, keyed by developer. */
export async function findPrimaries(
  db: Db,
  developerIds: readonly string[],
): Promise<Map<string, DestinationRow>> {
  if (developerIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhook_destinations')
    .select(columns)
    .where('developer_id', 'in', [...new Set(developerIds)])
    .where(isPrimaryWebhook)
    .execute();
  return new Map(rows.map((row) => [row.developer_id, row]));
}

/** Every destination of a developer, the primary webhook first, then the others oldest first. */
export async function listDeveloperDestinations(db: Db, developerId: string): Promise<DestinationRow[]> {
  return destinationsOf(db, developerId)
    .orderBy(sql`kind = 'webhook' AND NOT secondary`, 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** One destination of the developer by id, optionally locked until the caller's transaction ends. */
export async function findDeveloperDestination(
  db: Db,
  developerId: string,
  id: string,
  lock = false,
): Promise<DestinationRow | undefined> {
  return destinationsOf(db, developerId, lock).where('id', '=', id).executeTakeFirst();
}

/**
 * Where each event goes, keyed by `routeKey`: the developers' webhooks (events without a
 * destination) and the destinations the other events were copied for, in one query.
 */
export async function findRoutes(
  db: Db,
  events: readonly { developer_id: string; destination_id: string | null }[],
): Promise<Map<string, DestinationRow>> {
  const developers = [...new Set(events.filter((e) => !e.destination_id).map((e) => e.developer_id))];
  const ids = [...new Set(events.flatMap((e) => (e.destination_id ? [e.destination_id] : [])))];
  if (developers.length === 0 && ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhook_destinations')
    .select(columns)
    .where((eb) =>
      eb.or([
        ...(developers.length > 0
          ? [eb.and([eb('developer_id', 'in', developers), isPrimaryWebhook(eb)])]
          : []),
        ...(ids.length > 0 ? [eb('id', 'in', ids)] : []),
      ]),
    )
    .execute();
  return new Map(rows.map((row) => [isPrimary(row) ? webhookRouteKey(row.developer_id) : row.id, row]));
}

function webhookRouteKey(developerId: string): string {
  return `webhook:${developerId}`;
}

/** The destination an event goes to, as `findRoutes` keys it. */
export function routeKey(event: { developer_id: string; destination_id: string | null }): string {
  return event.destination_id ?? webhookRouteKey(event.developer_id);
}

/**
 * Where a developer's new events go: the primary webhook's event type filter (it gets a delivery
 * of every event whether or not it exists, held until it has a URL) and the other destinations
 * with theirs (null: every type).
 */
export async function eventRoutes(
  db: Db,
  developerId: string,
): Promise<{ primaryTypes: string[] | null; others: { id: string; eventTypes: string[] | null }[] }> {
  const rows = await db
    .selectFrom('webhook_destinations')
    .select(['id', 'kind', 'secondary', 'event_types'])
    .where('developer_id', '=', developerId)
    .orderBy('id')
    .execute();
  const primary = rows.find(isPrimary);
  return {
    primaryTypes: primary?.event_types ?? null,
    others: rows.filter((row) => !isPrimary(row)).map((row) => ({ id: row.id, eventTypes: row.event_types })),
  };
}

/**
 * Changes a destination: its settings (sealed) and target, name, event types and/or status.
 * (Re)enabling clears the failure streak, so the destination starts afresh.
 */
export async function updateDestination(
  db: Db,
  id: string,
  changes: {
    sealedSettings?: string;
    target?: string | null;
    name?: string | null;
    eventTypes?: string[] | null;
    status?: 'active' | 'disabled';
    at: Date;
  },
): Promise<void> {
  const status =
    changes.status === undefined
      ? {}
      : changes.status === 'active'
        ? { status: 'active' as const, consecutive_failures: 0, failing_since: null, disabled_at: null }
        : { status: 'disabled' as const, disabled_at: changes.at };
  await db
    .updateTable('webhook_destinations')
    .set({
      ...(changes.sealedSettings === undefined ? {} : { settings: changes.sealedSettings }),
      ...(changes.target === undefined ? {} : { url: changes.target }),
      ...(changes.name === undefined ? {} : { name: changes.name }),
      ...(changes.eventTypes === undefined ? {} : { event_types: changes.eventTypes }),
      ...status,
    })
    .where('id', '=', id)
    .execute();
}

/** Deletes a destination (its deliveries and their attempts go with it). */
export async function deleteDestination(db: Db, developerId: string, id: string): Promise<void> {
  await db
    .deleteFrom('webhook_destinations')
    .where('developer_id', '=', developerId)
    .where('id', '=', id)
    .execute();
}

/** Marks one destination suspended as of `at` (one made while its developer is suspended). */
export async function markSuspended(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable('webhook_destinations').set({ suspended_at: at }).where('id', '=', id).execute();
}

/** Developers whose destination can receive events now (a URL set, not disabled), in pages by developer id. */
export async function receivingDevelopers(db: Db, after: string | null, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_destinations')
    .select('developer_id')
    .where(isPrimaryWebhook)
    .where('url', 'is not', null)
    .where('status', '<>', 'disabled')
    .where('suspended_at', 'is', null)
    .$if(after !== null, (query) => query.where('developer_id', '>', after ?? ''))
    .orderBy('developer_id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.developer_id);
}

/** `retiredSecrets` of the given developers' destinations, keyed by destination id. */
export async function retiredSecretsOf(
  db: Db,
  developerIds: readonly string[],
  now: Date,
): Promise<Map<string, RetiredSecret[]>> {
  if (developerIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhook_retired_secrets as r')
    .innerJoin('webhook_destinations as d', 'd.id', 'r.destination_id')
    .select(['r.destination_id', 'r.secret', 'r.signs_until'])
    .where('d.developer_id', 'in', [...new Set(developerIds)])
    .where('d.kind', '=', WEBHOOK_KIND)
    .where('r.signs_until', '>', now)
    .orderBy('r.signs_until', 'desc')
    .orderBy('r.id', 'desc')
    .execute();
  return byDestination(rows);
}

export type RetiredSecret = { secret: string; signsUntil: Date };

/** Rows grouped by destination, each list in the order the rows came (newest first). */
export function byDestination(
  rows: { destination_id: string; secret: string; signs_until: Date }[],
): Map<string, RetiredSecret[]> {
  const found = new Map<string, RetiredSecret[]>();
  for (const row of rows) {
    const list = found.get(row.destination_id) ?? [];
    list.push({ secret: row.secret, signsUntil: row.signs_until });
    found.set(row.destination_id, list);
  }
  return found;
}

/**
 * Holds (or stops holding) the deliveries of every destination of a developer for its
 * suspension; returns the webhook's row as it was.
 */
export async function setSuspended(
  db: Db,
  developerId: string,
  suspendedAt: Date | null,
): Promise<DestinationRow | undefined> {
  const rows = await db
    .updateTable('webhook_destinations')
    .set({ suspended_at: suspendedAt })
    .where('developer_id', '=', developerId)
    .returning(columns)
    .execute();
  return rows.find(isPrimary);
}

/**
 * Folds a batch's results for one destination into its health. Any success ends a failure streak;
 * otherwise the streak grows, and its age decides `failing` and then `disabled`. Quiet successes do
 * not rewrite the row every batch: only a state change or a stale `last_success_at` does.
 */
export async function recordHealth(
  db: Db,
  destinationId: string,
  result: { successes: number; failures: number; at: Date; failingAfterMs: number; disableAfterMs: number },
): Promise<void> {
  const { at } = result;
  if (result.successes > 0) {
    await sql`
      UPDATE webhook_destinations SET consecutive_failures = 0, failing_since = NULL,
        status = CASE WHEN status = 'failing' THEN 'active' ELSE status END,
        last_success_at = ${at}
      WHERE id = ${destinationId} AND (consecutive_failures > 0 OR status = 'failing'
        OR last_success_at IS NULL OR last_success_at < ${at}::timestamptz - interval '10 seconds')`.execute(
      db,
    );
    return;
  }
  if (result.failures === 0) return;
  const since = sql`COALESCE(failing_since, ${at}::timestamptz)`;
  const disableAt = sql`${at}::timestamptz - ${result.disableAfterMs}::double precision * interval '1 millisecond'`;
  const failingAt = sql`${at}::timestamptz - ${result.failingAfterMs}::double precision * interval '1 millisecond'`;
  await sql`
    UPDATE webhook_destinations SET
      consecutive_failures = consecutive_failures + ${result.failures}::int,
      failing_since = ${since},
      last_failure_at = ${at},
      status = CASE
        WHEN status = 'disabled' OR ${since} <= ${disableAt} THEN 'disabled'
        WHEN ${since} <= ${failingAt} THEN 'failing'
        ELSE status END,
      disabled_at = CASE
        WHEN status <> 'disabled' AND ${since} <= ${disableAt} THEN ${at}
        ELSE disabled_at END
    WHERE id = ${destinationId}`.execute(db);
}

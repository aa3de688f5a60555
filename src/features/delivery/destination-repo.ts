// Data access for destinations (`webhook_destinations`): kind, settings, URL, signing secrets,
// event type filter and health. A developer's primary webhook (one each, what `/v2/webhook` names)
// is found by its developer; every other destination (secondary webhooks, the kinds of
// destination-kinds.ts) by its id.
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

const columns = [
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

/** A developer's destination: no URL yet (events are held until one is set), a fresh sealed secret. */
export async function insertDestination(
  db: Db,
  row: { developerId: string; environment: WebhookEnvironment; sealedSecret: string },
): Promise<void> {
  await db
    .insertInto('webhook_destinations')
    .values({
      id: newUuid(),
      developer_id: row.developerId,
      environment: row.environment,
      url: null,
      secret: row.sealedSecret,
      suspended_at: null,
      failing_since: null,
      disabled_at: null,
      last_success_at: null,
      last_failure_at: null,
    })
    .execute();
}

export async function findDestination(db: Db, developerId: string): Promise<DestinationRow | undefined> {
  return db
    .selectFrom('webhook_destinations')
    .select(columns)
    .where('developer_id', '=', developerId)
    .where(isPrimaryWebhook)
    .executeTakeFirst();
}

/** The webhook destinations of the given developers, keyed by developer. */
export async function findDestinations(
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

export const WEBHOOK_KIND = 'webhook';

/** The developer's primary webhook: the one `/v2/webhook` names, whose deliveries carry no destination id. */
export function isPrimary(row: { kind: string; secondary: boolean }): boolean {
  return row.kind === WEBHOOK_KIND && !row.secondary;
}

/** `isPrimary` as a query's condition. */
function isPrimaryWebhook(eb: ExpressionBuilder<Database, 'webhook_destinations'>) {
  return eb.and([eb('kind', '=', WEBHOOK_KIND), eb('secondary', '=', false)]);
}

function webhookRouteKey(developerId: string): string {
  return `webhook:${developerId}`;
}

/** The destination an event goes to, as `findRoutes` keys it. */
export function routeKey(event: { developer_id: string; destination_id: string | null }): string {
  return event.destination_id ?? webhookRouteKey(event.developer_id);
}

/**
 * A destination besides the primary webhook: another kind with its sealed settings, or a
 * secondary webhook (`secret` set, its URL as the target).
 */
export async function insertOtherDestination(
  db: Db,
  row: {
    id: string;
    developerId: string;
    environment: WebhookEnvironment;
    kind: string;
    name: string | null;
    sealedSettings: string | null;
    sealedSecret?: string;
    target: string;
    eventTypes: string[] | null;
  },
): Promise<void> {
  await db
    .insertInto('webhook_destinations')
    .values({
      id: row.id,
      developer_id: row.developerId,
      environment: row.environment,
      kind: row.kind,
      name: row.name,
      settings: row.sealedSettings,
      url: row.target,
      secret: row.sealedSecret ?? null,
      secondary: row.kind === WEBHOOK_KIND,
      event_types: row.eventTypes,
      suspended_at: null,
      failing_since: null,
      disabled_at: null,
      last_success_at: null,
      last_failure_at: null,
    })
    .execute();
}

/** Every destination of a developer, the primary webhook first, then the others oldest first. */
export async function listDeveloperDestinations(db: Db, developerId: string): Promise<DestinationRow[]> {
  return db
    .selectFrom('webhook_destinations')
    .select(columns)
    .where('developer_id', '=', developerId)
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
  return db
    .selectFrom('webhook_destinations')
    .select(columns)
    .where('developer_id', '=', developerId)
    .where('id', '=', id)
    .$if(lock, (query) => query.forUpdate())
    .executeTakeFirst();
}

/** The ids of the developer's destinations besides the primary webhook (each gets a delivery of every event). */
export async function otherDestinationIds(db: Db, developerId: string): Promise<string[]> {
  return (await eventRoutes(db, developerId)).others.map((route) => route.id);
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

/** Sets which event types a destination receives (null: every one). */
export async function setEventTypes(db: Db, id: string, eventTypes: string[] | null): Promise<void> {
  await db
    .updateTable('webhook_destinations')
    .set({ event_types: eventTypes })
    .where('id', '=', id)
    .execute();
}

/** Changes a non-primary destination's settings, name and/or status; (re)enabling clears the failure streak. */
export async function updateOtherDestination(
  db: Db,
  id: string,
  changes: {
    sealedSettings?: string;
    target?: string;
    name?: string | null;
    eventTypes?: string[] | null;
    status?: 'active' | 'disabled';
    at: Date;
  },
): Promise<void> {
  const reset =
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
      ...reset,
    })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('kind', '<>', WEBHOOK_KIND), eb('secondary', '=', true)]))
    .execute();
}

/** The developer's label for a destination (null: none). */
export async function renameDestination(db: Db, id: string, name: string | null): Promise<void> {
  await db.updateTable('webhook_destinations').set({ name }).where('id', '=', id).execute();
}

/** Marks one destination suspended as of `at` (one made while its developer is suspended). */
export async function markSuspended(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable('webhook_destinations').set({ suspended_at: at }).where('id', '=', id).execute();
}

/** Deletes a non-primary destination (its deliveries and their attempts go with it). */
export async function deleteOtherDestination(db: Db, developerId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_destinations')
    .where('developer_id', '=', developerId)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('kind', '<>', WEBHOOK_KIND), eb('secondary', '=', true)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
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

/** Sets the URL and/or status; (re)enabling clears the failure streak so the destination starts afresh. */
export async function updateDestination(
  db: Db,
  developerId: string,
  changes: { url?: string | null; status: 'active' | 'disabled'; at: Date },
): Promise<void> {
  const reset =
    changes.status === 'active'
      ? { consecutive_failures: 0, failing_since: null, disabled_at: null }
      : { disabled_at: changes.at };
  await db
    .updateTable('webhook_destinations')
    .set({
      ...(changes.url === undefined ? {} : { url: changes.url }),
      status: changes.status,
      ...reset,
    })
    .where('developer_id', '=', developerId)
    .where(isPrimaryWebhook)
    .execute();
}

/** The destination, locked until the caller's transaction ends (rotations queue on it). */
export async function lockDestination(db: Db, developerId: string): Promise<DestinationRow | undefined> {
  return db
    .selectFrom('webhook_destinations')
    .select(columns)
    .where('developer_id', '=', developerId)
    .where(isPrimaryWebhook)
    .forUpdate()
    .executeTakeFirst();
}

/** Replaced secrets still signing at `now`, per destination, newest first (sealed). */
export async function retiredSecrets(
  db: Db,
  destinationIds: readonly string[],
  now: Date,
): Promise<Map<string, RetiredSecret[]>> {
  if (destinationIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhook_retired_secrets')
    .select(['destination_id', 'secret', 'signs_until'])
    .where('destination_id', 'in', [...new Set(destinationIds)])
    .where('signs_until', '>', now)
    .orderBy('signs_until', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return byDestination(rows);
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

type RetiredSecret = { secret: string; signsUntil: Date };

/** Rows grouped by destination, each list in the order the rows came (newest first). */
function byDestination(
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
 * Makes `sealedNew` the current secret; the one it replaces keeps signing until `signsUntil`.
 * Replaced secrets whose overlap has ended are forgotten. Runs under `lockDestination`.
 */
export async function rotateSecret(
  db: Db,
  destination: Pick<DestinationRow, 'id' | 'secret'>,
  sealedNew: string,
  at: Date,
  signsUntil: Date,
): Promise<void> {
  if (destination.secret === null) throw new Error(`destination ${destination.id} has no signing secret`);
  const current = destination.secret;
  await db
    .deleteFrom('webhook_retired_secrets')
    .where('destination_id', '=', destination.id)
    .where('signs_until', '<=', at)
    .execute();
  await db
    .insertInto('webhook_retired_secrets')
    .values({
      destination_id: destination.id,
      secret: current,
      retired_at: at,
      signs_until: signsUntil,
    })
    .execute();
  await db
    .updateTable('webhook_destinations')
    .set({ secret: sealedNew })
    .where('id', '=', destination.id)
    .execute();
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

/** Failed attempts since `since` (uses the partial failure index, so it stays cheap at volume). */
export async function countFailuresSince(
  db: Db,
  developerId: string,
  since: Date,
  destinationId: string | null = null,
): Promise<number> {
  const row = await db
    .selectFrom('delivery_attempts as a')
    .innerJoin('deliveries as d', 'd.id', 'a.delivery_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('a.developer_id', '=', developerId)
    .where('a.attempted_at', '>=', since)
    .where('a.outcome', '<>', 'delivered')
    .where('d.destination_id', destinationId === null ? 'is' : '=', destinationId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Held deliveries to the developer's webhook (`destinationId` null) or to one other destination. */
export async function countHeld(
  db: Db,
  developerId: string,
  destinationId: string | null = null,
): Promise<number> {
  const row = await db
    .selectFrom('deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('developer_id', '=', developerId)
    .where('destination_id', destinationId === null ? 'is' : '=', destinationId)
    .where('held_at', 'is not', null)
    .where('status', '=', 'held')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Attempts in the last hour and the hour before, for the healthcheck event's figures. */
export async function attemptsPerHour(
  db: Db,
  developerId: string,
  at: Date,
): Promise<{ last: number; previous: number }> {
  const result = await sql<{ last: number; previous: number }>`
    SELECT count(*) FILTER (WHERE attempted_at >= ${at}::timestamptz - interval '1 hour') AS last,
           count(*) FILTER (WHERE attempted_at < ${at}::timestamptz - interval '1 hour') AS previous
    FROM delivery_attempts
    WHERE developer_id = ${developerId} AND attempted_at >= ${at}::timestamptz - interval '2 hours'`.execute(
    db,
  );
  const row = result.rows[0];
  return { last: Number(row?.last ?? 0), previous: Number(row?.previous ?? 0) };
}

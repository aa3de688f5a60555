import { invalidParameter, notFound } from '../../core/errors.ts';
import { formatDateTime } from '../../model/time.ts';
import type { Db } from '../../store/db.ts';
import type { ConnectionRow } from './repo.ts';
import * as listing from './listing-repo.ts';
import * as repo from './repo.ts';

export type { ConnectionRow } from './repo.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string) => UUID.test(value);

/** 400 naming the parameter, before a malformed id reaches a uuid column. */
export function requireUuid(name: string, value: string): string {
  if (!isUuid(value)) throw invalidParameter(name, 'expected a UUID');
  return value.toLowerCase();
}

/**
 * The contract's User object (docs/wire-contract.md#the-user-object); exactly these keys, so no
 * column leaks.
 */
export type WireUser = {
  user_id: string;
  provider: string;
  last_webhook_update: string | null;
  scopes: string | null;
  reference_id: string | null;
  active: boolean;
  created_at: string;
};

export type DetailedWireUser = WireUser & {
  last_polled_at: string | null;
  most_recent_data_at: string | null;
};

const wireTime = (value: Date | null) => (value ? formatDateTime(value.getTime(), 0) : null);

export function toWireUser(row: ConnectionRow): WireUser {
  return {
    user_id: row.id,
    provider: row.provider,
    last_webhook_update: wireTime(row.last_webhook_update),
    scopes: row.scopes,
    reference_id: row.reference_id,
    active: row.active,
    created_at: formatDateTime(row.created_at.getTime(), 0),
  };
}

export function toDetailedWireUser(row: ConnectionRow): DetailedWireUser {
  return {
    ...toWireUser(row),
    last_polled_at: wireTime(row.last_polled_at),
    most_recent_data_at: wireTime(row.most_recent_data_at),
  };
}

/**
 * The user `userId` of `developerId`, for any module serving a user's data: 400 for a malformed
 * id, 404 when it does not exist or belongs to another developer (never revealing which).
 */
/**
 * Looks up the connection and, in the same statement, charges the read budget when the
 * connection may be charged: see data's `findConnectionAndCharge`. The caller passes the
 * charging part (given the checked ids); this keeps the id check and the 404 the same as
 * `findConnectionForDeveloper`.
 */
export async function findConnectionWith<T extends { id: string }>(
  developerId: string,
  userId: string,
  run: (ids: { developerId: string; userId: string }) => Promise<T | undefined>,
): Promise<T> {
  const id = requireUuid('user_id', userId);
  // The caller's statement finds the connection with `repo.connectionQuery` of these ids.
  const row = await run({ developerId, userId: id });
  if (!row) throw notFound(`no user with user_id ${userId}`);
  return row;
}

export async function findConnectionForDeveloper(
  db: Db,
  developerId: string,
  userId: string,
): Promise<ConnectionRow> {
  const row = await repo.findConnection(db, developerId, requireUuid('user_id', userId));
  if (!row) throw notFound(`no user with user_id ${userId}`);
  return row;
}

export const SUBSCRIPTIONS_MAX_PER_PAGE = 1000;
export const SUBSCRIPTIONS_DEFAULT_PER_PAGE = 500;
export const BULK_MAX_USERS = 1000;

export type UserInfoResult =
  { kind: 'one'; user: DetailedWireUser; isAuthenticated: boolean } | { kind: 'many'; users: WireUser[] };

export type SubscriptionsResult =
  | { kind: 'all'; users: WireUser[] }
  | { kind: 'page'; next: number | null; maxPage: number; results: WireUser[] };

/**
 * A person: the developer's active connections that share a reference_id (its own id for the
 * person), oldest first. The merged view reads them together.
 */
export async function findPersonConnections(
  db: Db,
  developerId: string,
  referenceId: string,
): Promise<ConnectionRow[]> {
  const rows = await repo.findConnectionsByReference(db, developerId, referenceId);
  return rows.filter((row) => row.status === 'active');
}

/**
 * A connection moved from one person to another: its `reference_id` changed (either side may be
 * null). Told in the updating transaction, with the row after the change.
 */
export type ReferenceChange = { user: ConnectionRow; from: string | null; to: string | null };
export type ReferenceChangedHook = (trx: Db, change: ReferenceChange) => Promise<void>;

export function createConnectionsService(deps: { db: Db }) {
  const { db } = deps;
  const referenceHandlers: ReferenceChangedHook[] = [];
  return {
    /** Registers a handler told of every `reference_id` change, in the updating transaction. */
    onReferenceChanged(handler: ReferenceChangedHook) {
      referenceHandlers.push(handler);
    },

    async userInfo(
      developerId: string,
      query: { user_id?: string; reference_id?: string },
    ): Promise<UserInfoResult> {
      if (query.user_id !== undefined) {
        const row = await findConnectionForDeveloper(db, developerId, query.user_id);
        if (query.reference_id !== undefined && row.reference_id !== query.reference_id) {
          throw notFound(`no user with user_id ${query.user_id} and reference_id ${query.reference_id}`);
        }
        return { kind: 'one', user: toDetailedWireUser(row), isAuthenticated: row.status === 'active' };
      }
      if (query.reference_id !== undefined) {
        if (query.reference_id === '') throw invalidParameter('reference_id', 'must not be empty');
        const rows = await repo.findConnectionsByReference(db, developerId, query.reference_id);
        return { kind: 'many', users: rows.map(toWireUser) };
      }
      throw invalidParameter('user_id', 'provide user_id or reference_id');
    },

    async subscriptions(
      developerId: string,
      query: { page?: number; per_page?: number },
    ): Promise<SubscriptionsResult> {
      if (query.page === undefined) {
        return { kind: 'all', users: (await listing.listConnected(db, developerId)).map(toWireUser) };
      }
      const perPage = query.per_page ?? SUBSCRIPTIONS_DEFAULT_PER_PAGE;
      const total = await listing.countConnected(db, developerId);
      const maxPage = Math.max(0, Math.ceil(total / perPage) - 1);
      const rows = await listing.listConnected(db, developerId, {
        offset: query.page * perPage,
        limit: perPage,
      });
      return {
        kind: 'page',
        next: query.page < maxPage ? query.page + 1 : null,
        maxPage,
        results: rows.map(toWireUser),
      };
    },

    /** The developer's users among `userIds`, in the order asked; unknown ids are left out. */
    async bulkUserInfo(developerId: string, userIds: readonly string[]): Promise<WireUser[]> {
      // The schema says array, but Ajv's type coercion cannot replace a request's root value: a
      // body of "x" or 12 passes validation as if it were ["x"] and arrives here unchanged.
      if (!Array.isArray(userIds)) throw invalidParameter('body', 'expected a JSON array of user ids');
      const ids = userIds.map((id, index) => requireUuid(`user_ids[${index}]`, id));
      const rows = await repo.findConnectionsByIds(db, developerId, [...new Set(ids)]);
      const byId = new Map(rows.map((row) => [row.id, row]));
      return [...new Set(ids)].flatMap((id) => {
        const row = byId.get(id);
        return row ? [toWireUser(row)] : [];
      });
    },

    /** Counts by provider and status, for the dashboard's overview. */
    countByProviderAndStatus: (developerId: string) => listing.countByProviderAndStatus(db, developerId),

    /** The newest users first, as the dashboard lists them before a search. */
    async recent(developerId: string, limit: number): Promise<DetailedWireUser[]> {
      return (await listing.listRecentConnections(db, developerId, limit)).map(toDetailedWireUser);
    },

    async update(
      developerId: string,
      userId: string,
      changes: { reference_id?: string | null; active?: boolean },
    ): Promise<WireUser> {
      await findConnectionForDeveloper(db, developerId, userId);
      const set: { reference_id?: string | null; active?: boolean } = {};
      if (changes.reference_id !== undefined)
        set.reference_id = changes.reference_id === '' ? null : changes.reference_id;
      if (changes.active !== undefined) set.active = changes.active;
      if (Object.keys(set).length === 0) throw invalidParameter('body', 'provide reference_id and/or active');
      const row = await db.transaction().execute(async (trx) => {
        // The row as it was, locked, so two concurrent changes each see the other's result.
        const before = await repo.lockDeveloperConnection(trx, developerId, userId.toLowerCase());
        if (!before) return undefined;
        const after = await repo.updateConnection(trx, developerId, before.id, set);
        if (after && before.reference_id !== after.reference_id)
          for (const handler of referenceHandlers)
            await handler(trx, { user: after, from: before.reference_id, to: after.reference_id });
        return after;
      });
      if (!row) throw notFound(`no user with user_id ${userId}`);
      return toWireUser(row);
    },
  };
}

export type ConnectionsService = ReturnType<typeof createConnectionsService>;

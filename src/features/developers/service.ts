import { badRequest, notFound } from '../../core/errors.ts';
import { newSluggedId } from '../../core/ids.ts';
import { publishChange } from '../../store/change-feed.ts';
import type { Db } from '../../store/db.ts';
import { generateApiKey, matchingKey } from './api-keys.ts';
import type { DeveloperRow } from './repo.ts';
import * as repo from './repo.ts';
import type { Environment } from './tables.ts';

export type Developer = {
  id: string;
  name: string;
  environment: Environment;
  status: 'active' | 'suspended';
  orderApiAccess: boolean;
  /** Per-dev-id override of the hourly data-read budget (days); null means the default. */
  hourlyDaysLimit: number | null;
  createdAt: Date;
};

export type CreatedDeveloper = { developer: Developer; apiKey: string; webhookSecret: string };

/**
 * What other features give a new developer, in its creation transaction, set at composition
 * (runtime/context.ts): today the webhook destination, whose signing secret is handed out this once.
 */
export type DeveloperSetUp = (trx: Db, developer: Developer) => Promise<{ webhookSecret: string }>;

/**
 * What other features do when a developer is suspended or resumed, also set at composition:
 * `changed` runs in the status change's transaction (today: webhook deliveries held or not),
 * `committed` after it (today: releasing the deliveries held meanwhile, in transactions of its own).
 */
export type DeveloperStatusHooks = {
  changed(trx: Db, developer: Developer): Promise<void>;
  committed(developer: Developer): Promise<void>;
};

export type AuthenticationResult =
  /** `keyId`: which of the developer's keys was presented (a dashboard session is tied to it). */
  | { ok: true; developer: Developer; keyId: string }
  | { ok: false; kind: 'unauthorized' | 'forbidden'; detail: string };

const toDeveloper = (row: DeveloperRow): Developer => ({
  id: row.id,
  name: row.name,
  environment: row.environment,
  status: row.status,
  orderApiAccess: row.order_api_access,
  hourlyDaysLimit: row.hourly_days_limit,
  createdAt: row.created_at,
});

/** `acme-health-3f9a2c1d`: readable in logs and dashboards, unguessable enough to not enumerate. */
function newDeveloperId(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 24)
    .replace(/-+$/, '');
  return newSluggedId(slug || 'dev', 4);
}

/**
 * How long an authenticated developer's row and live key hashes are reused without asking the
 * database again: a safety net only. A change is forgotten long before this: the writer forgets it
 * in its own process before the change returns, and publishes a `credentials` notice in the
 * change's transaction (store/change-feed.ts) that every other process sharing the store forgets
 * it on as soon as the notice reaches it. That is when the writer hears its own echo, give or take
 * the network between the database and each process: not the same instant, so another process can
 * still accept a revoked key for that long (well under a millisecond on one host). While a process
 * cannot be sure it hears those notices (its listening connection is down or not yet up), its
 * cache answers nothing and every request asks the database.
 */
export const CREDENTIAL_CACHE_MS = 3_000;
const CREDENTIAL_CACHE_ENTRIES = 10_000;

/** The longest a change waits to hear its own notice before it reports done anyway. */
const NOTICE_ECHO_WAIT_MS = 2_000;

/** The change-feed topic of developer and API key changes; the payload is the dev-id. */
export const CREDENTIALS_TOPIC = 'credentials';

/** Listens to the store's change feed (store/change-feed.ts `ChangeHandlers`). */
export type CredentialChanges = (handlers: { changed(devId: string): void; live(up: boolean): void }) => void;

type FoundDeveloper = Awaited<ReturnType<typeof repo.findDeveloperWithKeyHashes>>;

/**
 * Per-process cache of the authentication look-up (one query per API request otherwise). The
 * presented key is still checked against the hashes on every request; unknown dev-ids are never
 * cached, so a caller cannot fill it. Time is monotonic, independent of any injected clock.
 */
function createCredentialCache(keepForMs: number, changes: CredentialChanges | undefined) {
  const entries = new Map<string, { found: NonNullable<FoundDeveloper>; until: number }>();
  // Bumped by every change: a look-up that was in flight across one is not kept (it may predate it).
  let generation = 0;
  // Without a feed there is no way to hear other processes' changes: nothing is cached.
  let live = false;
  const forgetAll = () => {
    generation++;
    entries.clear();
  };
  // Writers in this process waiting to hear their own notice come back (see `heard`).
  const awaiting = new Map<string, Set<() => void>>();
  changes?.({
    changed(devId) {
      generation++;
      entries.delete(devId);
      for (const resolve of awaiting.get(devId) ?? []) resolve();
    },
    live(up) {
      // Notices may have been missed while down: nothing cached before survives either edge.
      forgetAll();
      live = up;
    },
  });
  return {
    async lookup(devId: string, load: () => Promise<FoundDeveloper>): Promise<FoundDeveloper> {
      if (!live || keepForMs <= 0) return load();
      const now = performance.now();
      const cached = entries.get(devId);
      if (cached && cached.until > now) return cached.found;
      entries.delete(devId);
      const before = generation;
      const found = await load();
      if (found && live && before === generation) {
        if (entries.size >= CREDENTIAL_CACHE_ENTRIES) entries.delete(entries.keys().next().value!);
        entries.set(devId, { found, until: now + keepForMs });
      }
      return found;
    },
    /** The look-up again from the store, whatever is cached. */
    reload(devId: string, load: () => Promise<FoundDeveloper>): Promise<FoundDeveloper> {
      entries.delete(devId);
      return this.lookup(devId, load);
    },
    forget(devId: string) {
      generation++;
      entries.delete(devId);
    },
    /**
     * Resolves once a notice for `devId` is heard (or after `waitMs`, or at once when the feed is
     * not live). Registered before the change commits: PostgreSQL signals every listener at
     * commit, so by the time a writer hears its own notice the other processes have been sent
     * theirs, and a change reported done is on its way to being forgotten everywhere (each
     * process forgets it when its copy arrives, not at the same instant).
     */
    heard(devId: string, waitMs: number): { done: Promise<void>; cancel(): void } {
      if (!live) return { done: Promise.resolve(), cancel() {} };
      let timer: NodeJS.Timeout | undefined;
      let resolve!: () => void;
      const done = new Promise<void>((settle) => {
        resolve = () => {
          clearTimeout(timer);
          awaiting.get(devId)?.delete(resolve);
          if (awaiting.get(devId)?.size === 0) awaiting.delete(devId);
          settle();
        };
      });
      timer = setTimeout(resolve, waitMs);
      timer.unref();
      const waiters = awaiting.get(devId) ?? new Set();
      waiters.add(resolve);
      awaiting.set(devId, waiters);
      return { done, cancel: resolve };
    },
  };
}

export function createDevelopersService(deps: {
  db: Db;
  setUp: DeveloperSetUp;
  statusHooks?: DeveloperStatusHooks;
  /** How this process hears credential changes made elsewhere; without it nothing is cached. */
  credentialChanges?: CredentialChanges;
  /** How long a look-up is reused (CREDENTIAL_CACHE_MS unless a test needs it to outlast a wait). */
  credentialCacheMs?: number;
}) {
  const { db } = deps;
  const credentials = createCredentialCache(
    deps.credentialCacheMs ?? CREDENTIAL_CACHE_MS,
    deps.credentialChanges,
  );

  /**
   * Runs a change to a developer or its keys with its `credentials` notice in one transaction,
   * then forgets the developer here (before the notice comes back, so this process's next request
   * already asks the database).
   */
  async function changeCredentials<T>(devId: string, change: (trx: Db) => Promise<T>): Promise<T> {
    const echo = credentials.heard(devId, NOTICE_ECHO_WAIT_MS);
    let result: T;
    try {
      result = await db.transaction().execute(async (trx) => {
        const changed = await change(trx);
        await publishChange(trx, CREDENTIALS_TOPIC, devId);
        return changed;
      });
    } catch (error) {
      echo.cancel();
      throw error;
    } finally {
      credentials.forget(devId);
    }
    await echo.done;
    // Notices that reached other listeners in this process by now are handled before returning.
    await new Promise((resolve) => setImmediate(resolve));
    return result;
  }

  async function mustFind(id: string): Promise<DeveloperRow> {
    const row = await repo.findDeveloper(db, id);
    if (!row) throw notFound(`no developer with dev-id "${id}"`);
    return row;
  }

  return {
    async create(input: {
      name: string;
      environment: Environment;
      orderApiAccess?: boolean;
    }): Promise<CreatedDeveloper> {
      const name = input.name.trim();
      if (name === '') throw badRequest('invalid name: must not be empty');
      if (input.environment !== 'sandbox' && input.environment !== 'production') {
        throw badRequest('invalid environment: expected sandbox or production');
      }
      const key = generateApiKey(input.environment);
      return db.transaction().execute(async (trx) => {
        const developer = toDeveloper(
          await repo.insertDeveloper(trx, {
            id: newDeveloperId(name),
            name,
            environment: input.environment,
            order_api_access: input.orderApiAccess ?? false,
          }),
        );
        await repo.insertApiKey(trx, {
          id: key.id,
          developer_id: developer.id,
          display_prefix: key.displayPrefix,
          hash: key.hash,
        });
        const { webhookSecret } = await deps.setUp(trx, developer);
        return { developer, apiKey: key.plaintext, webhookSecret };
      });
    },

    async get(id: string): Promise<Developer> {
      return toDeveloper(await mustFind(id));
    },

    async list(): Promise<Developer[]> {
      return (await repo.listDevelopers(db)).map(toDeveloper);
    },

    async count(): Promise<number> {
      return repo.countDevelopers(db);
    },

    /** Suspends (everything stops for the developer) or resumes it; setting the same status again is harmless. */
    async setStatus(id: string, status: 'active' | 'suspended'): Promise<Developer> {
      const developer = await changeCredentials(id, async (trx) => {
        const row = await repo.updateDeveloper(trx, id, { status });
        if (!row) throw notFound(`no developer with dev-id "${id}"`);
        const changed = toDeveloper(row);
        await deps.statusHooks?.changed(trx, changed);
        return changed;
      });
      await deps.statusHooks?.committed(developer);
      return developer;
    },

    async setOrderApiAccess(id: string, enabled: boolean): Promise<Developer> {
      const row = await changeCredentials(id, (trx) =>
        repo.updateDeveloper(trx, id, { order_api_access: enabled }),
      );
      if (!row) throw notFound(`no developer with dev-id "${id}"`);
      return toDeveloper(row);
    },

    async setHourlyDaysLimit(id: string, days: number | null): Promise<Developer> {
      if (days !== null && (!Number.isInteger(days) || days <= 0)) {
        throw badRequest('invalid hourly-days: expected a positive integer');
      }
      const row = await changeCredentials(id, (trx) =>
        repo.updateDeveloper(trx, id, { hourly_days_limit: days }),
      );
      if (!row) throw notFound(`no developer with dev-id "${id}"`);
      return toDeveloper(row);
    },

    async createKey(id: string): Promise<{ id: string; apiKey: string }> {
      const developer = await mustFind(id);
      const key = generateApiKey(developer.environment);
      await changeCredentials(id, (trx) =>
        repo.insertApiKey(trx, {
          id: key.id,
          developer_id: id,
          display_prefix: key.displayPrefix,
          hash: key.hash,
        }),
      );
      return { id: key.id, apiKey: key.plaintext };
    },

    async listKeys(id: string) {
      await mustFind(id);
      return repo.listApiKeys(db, id);
    },

    async revokeKey(id: string, keyId: string): Promise<void> {
      await mustFind(id);
      const revoked = await changeCredentials(id, (trx) => repo.revokeApiKey(trx, id, keyId));
      if (!revoked) {
        throw notFound(`no live key "${keyId}" for dev-id "${id}"`);
      }
    },

    /** 401 for anything wrong with the credentials (without saying which part), 403 when suspended. */
    async authenticate(devId: string, apiKey: string): Promise<AuthenticationResult> {
      const load = () => repo.findDeveloperWithKeyHashes(db, devId);
      let found = await credentials.lookup(devId, load);
      let keyId = found ? matchingKey(apiKey, found.keys) : undefined;
      if (found && keyId === undefined) {
        // A key created moments ago by another process is not in this process's cached entry yet:
        // look once more in the store before refusing it.
        found = await credentials.reload(devId, load);
        keyId = found ? matchingKey(apiKey, found.keys) : undefined;
      }
      if (!found || keyId === undefined) {
        return { ok: false, kind: 'unauthorized', detail: 'unknown dev-id or invalid API key' };
      }
      if (found.developer.status === 'suspended') {
        return { ok: false, kind: 'forbidden', detail: 'developer account is suspended' };
      }
      return { ok: true, developer: toDeveloper(found.developer), keyId };
    },

    /**
     * The developer behind a dashboard session, checked on every request: undefined once the key
     * the session was made with is revoked; a suspended developer is `forbidden` as in the API.
     */
    async sessionDeveloper(devId: string, keyId: string): Promise<AuthenticationResult> {
      const row = await repo.findDeveloper(db, devId);
      if (!row || !(await repo.isLiveApiKey(db, devId, keyId))) {
        return {
          ok: false,
          kind: 'unauthorized',
          detail: 'the API key this session was made with is revoked',
        };
      }
      if (row.status === 'suspended') {
        return { ok: false, kind: 'forbidden', detail: 'developer account is suspended' };
      }
      return { ok: true, developer: toDeveloper(row), keyId };
    },
  };
}

export type DevelopersService = ReturnType<typeof createDevelopersService>;

// Bringing a connection's data into the store: which days of a range are not yet synced (coverage),
// fetching them from the provider's data source (bounded by its history limit), validating and
// upserting page by page (page-intake.ts) so a five-year backfill never sits in memory.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { addDays, dayNumberToIsoDate, MS_PER_DAY } from '../../model/time.ts';
import type { DataPage, DataSource, DataSourceContext } from '../../provider-kit/data-source.ts';
import { originalsKeptOf } from '../original-files/keep.ts';
import type { ProviderCatalog, ResolvedProvider } from '../../provider-access/catalog.ts';
import type { ProviderDataType, ProviderRuntime } from '../../provider-kit/types.ts';
import type { Db } from '../../store/db.ts';
import { readProviderTokens } from '../../provider-access/token-store.ts';
import type { ConnectionRow } from '../connections/service.ts';
import { markPolled } from '../connections/stamps-repo.ts';
import { earlierDay, laterDay } from './params.ts';
import type { IntakeWrite } from './intake.ts';
import type { Refusals } from './refusals.ts';
import * as coverageRepo from './coverage-repo.ts';
import { createPageIntake } from './page-intake.ts';
import { createSettledCoverage } from './settled-coverage.ts';

/** Recent days (yesterday onwards) still change at the provider; their sync stays valid this long. */
export const RECENT_SYNC_TTL_MS = 5 * 60_000;
/** The athlete profile is re-read from the provider when older than this. */
export const ATHLETE_TTL_MS = 60 * 60_000;

export type ProviderFetchDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  providers: ProviderCatalog;
  secretBox: SecretBox;
  runtime: ProviderRuntime;
  /** Replaces the context below: the connector framework's (fresh credentials, provider HTTP). */
  connectorContext?: (user: ConnectionRow) => DataSourceContext;
  /** The one write path for records (intake.ts): every batch a fetch stores goes through it. */
  write: IntakeWrite;
  /** Where refused records are counted (the operator's metric). */
  refusals: Refusals;
  /** Raw payloads are kept this many days (0: not kept, so not even serialized). */
  rawRetentionDays: number;
};

/** Runs `task` after every earlier task of the same key in this process has finished. */
function keyedQueue() {
  const tails = new Map<string, Promise<unknown>>();
  return async <T>(key: string, task: () => Promise<T>): Promise<T> => {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}

/** Types whose records may be dated in the future (a plan), so a sync reads future days too. */
export const recordsLieAhead = (type: ProviderDataType): boolean => type === 'plannedWorkout';

/** Gaps of [from, to) not covered by `covered` (sorted by start). */
export function uncoveredDays(
  from: string,
  to: string,
  covered: readonly coverageRepo.CoverageRow[],
): [string, string][] {
  const gaps: [string, string][] = [];
  let cursor = from;
  for (const row of covered) {
    if (row.end_day <= cursor) continue;
    if (row.start_day >= to) break;
    if (row.start_day > cursor) gaps.push([cursor, row.start_day]);
    if (row.end_day > cursor) cursor = row.end_day;
    if (cursor >= to) break;
  }
  if (cursor < to) gaps.push([cursor, to]);
  return gaps;
}

export function createProviderFetch(deps: ProviderFetchDeps) {
  const { db, clock, log } = deps;
  // Concurrent reads of one user's type share one sync: later ones wait, then find it covered.
  // Across processes duplicate fetches are possible and harmless: upserts are idempotent, and a day
  // built from its kept summaries is built and written in its exclusive section (page-intake.ts).
  const serialized = keyedQueue();
  const settledCoverage = createSettledCoverage();
  const takeIn = createPageIntake(deps);

  function sourceFor(
    user: ConnectionRow,
    type: ProviderDataType,
  ): { provider: ResolvedProvider; source: DataSource } | null {
    const provider = deps.providers.get(user.provider);
    const source = provider?.connector?.data;
    // Only connected users are fetched; broken or revoked ones are answered from what is stored.
    if (!provider || !source || user.status !== 'active') return null;
    if (!provider.declaration.dataTypes.includes(type)) return null;
    return { provider, source };
  }

  function contextFor(user: ConnectionRow): DataSourceContext {
    const base: DataSourceContext = deps.connectorContext
      ? deps.connectorContext(user)
      : {
          user: { id: user.id, providerUserId: user.provider_user_id, scopes: user.scopes },
          runtime: deps.runtime,
          credentials: async () => {
            const tokens = await readProviderTokens(db, user.id);
            return tokens ? { accessToken: deps.secretBox.open(tokens.access_token) } : null;
          },
        };
    return { ...base, originalsKept: originalsKeptOf(db, user.id) };
  }

  /** The companion kinds this connection's provider refused before: every fetch leaves them out. */
  const unreadableOf = async (user: ConnectionRow) =>
    new Set((await coverageRepo.unreadableCompanions(db, user.id)).map((row) => row.kind));

  async function fetchDays(
    user: ConnectionRow,
    type: ProviderDataType,
    source: DataSource,
    from: string,
    to: string,
  ): Promise<number> {
    const args = {
      ...contextFor(user),
      type,
      startDate: from,
      endDate: to,
      unreadable: await unreadableOf(user),
    };
    return (await takeIn(user, type, source.fetch(args))).invalid;
  }

  /** Records the local days [from, to) of `type` as synced now: settled before yesterday, fresh after. */
  async function addSynced(
    user: ConnectionRow,
    type: ProviderDataType,
    from: string,
    to: string,
  ): Promise<void> {
    const settledBefore = dayNumberToIsoDate(Math.floor(clock.now().getTime() / MS_PER_DAY) - 1);
    const at = clock.now();
    await db.transaction().execute(async (trx) => {
      const split = earlierDay(to, laterDay(from, settledBefore));
      await coverageRepo.addCoverage(trx, {
        userId: user.id,
        type,
        fromDay: from,
        toDay: split,
        settled: true,
        now: at,
      });
      await coverageRepo.addCoverage(trx, {
        userId: user.id,
        type,
        fromDay: split,
        toDay: to,
        settled: false,
        now: at,
      });
      await markPolled(trx, user.id, at);
    });
  }

  /**
   * Makes sure the local days [fromDay, toDay) of `type` are in the store. Days the provider
   * cannot serve (beyond its history, or in the future) are skipped. Throws ProviderDataError
   * when the provider fails; what was stored before the failure stays (and counts next time).
   */
  async function syncDays(
    user: ConnectionRow,
    type: ProviderDataType,
    fromDay: string,
    toDay: string,
  ): Promise<void> {
    const found = sourceFor(user, type);
    if (!found) return;
    const now = clock.now();
    const todayNumber = Math.floor(now.getTime() / MS_PER_DAY);
    const history = found.provider.declaration.historyDays;
    // A local day can run up to a day ahead of UTC; no measurement exists beyond that. Plans lie
    // ahead by nature: their window is read as asked.
    const latest = recordsLieAhead(type) ? toDay : dayNumberToIsoDate(todayNumber + 2);
    const earliest = history === null ? null : dayNumberToIsoDate(todayNumber - history);
    const from = earliest ? laterDay(earliest, fromDay) : fromDay;
    const to = earlierDay(latest, toDay);
    if (from >= to) return;
    // Days settled long ago, known here to be in: nothing to ask the database.
    if (uncoveredDays(from, to, settledCoverage.known(user.id, type)).length === 0) return;

    await serialized(`${user.id}:${type}`, async () => {
      const freshAfter = new Date(clock.now().getTime() - RECENT_SYNC_TTL_MS);
      const covered = await coverageRepo.coverageIn(db, {
        userId: user.id,
        type,
        fromDay: from,
        toDay: to,
        freshAfter,
      });
      settledCoverage.learn(
        user.id,
        type,
        covered.filter((row) => row.settled),
      );
      const gaps = uncoveredDays(from, to, covered);
      for (const [gapFrom, gapTo] of gaps) {
        const invalid = await fetchDays(user, type, found.source, gapFrom, gapTo);
        await addSynced(user, type, gapFrom, gapTo);
        if (invalid > 0)
          log.warn(
            { userId: user.id, type, from: gapFrom, to: gapTo, invalid },
            'sync skipped invalid records',
          );
      }
    });
  }

  /**
   * Whether the local days [fromDay, toDay) of a connection's type are known in this process to
   * be settled and in, so that `syncDays` would fetch nothing and ask the database nothing.
   */
  function knownSettled(userId: string, type: ProviderDataType, fromDay: string, toDay: string): boolean {
    return (
      fromDay >= toDay || uncoveredDays(fromDay, toDay, settledCoverage.known(userId, type)).length === 0
    );
  }

  /** Re-reads the athlete profile when the stored one is missing or older than ATHLETE_TTL_MS. */
  async function syncAthlete(user: ConnectionRow): Promise<void> {
    const found = sourceFor(user, 'athlete');
    if (!found) return;
    await serialized(`${user.id}:athlete`, async () => {
      const stored = await db
        .selectFrom('data_records')
        .select('updated_at')
        .where('user_id', '=', user.id)
        .where('type', '=', 'athlete')
        .executeTakeFirst();
      if (stored && stored.updated_at.getTime() > clock.now().getTime() - ATHLETE_TTL_MS) return;
      const today = dayNumberToIsoDate(Math.floor(clock.now().getTime() / MS_PER_DAY));
      await fetchDays(user, 'athlete', found.source, today, addDays(today, 1));
      await markPolled(db, user.id, clock.now());
    });
  }

  /**
   * Takes in the pages of local days [fromDay, toDay) fetched again because the provider said
   * they changed (a notification or a poll), whatever their coverage: through `takeIn` like any
   * other fetch, each batch sent on as a data event, then recorded as synced. With `replace`
   * (records were deleted at the provider), the stored records of those days the pages no longer
   * hold are removed (and announced) after the last batch. Returns the records stored.
   */
  async function intakeChanged(
    user: ConnectionRow,
    type: ProviderDataType,
    range: { fromDay: string; toDay: string },
    pages: AsyncIterable<DataPage>,
    options: { replace?: boolean } = {},
  ): Promise<number> {
    return serialized(`${user.id}:${type}`, async () => {
      const keys: string[] | undefined = options.replace ? [] : undefined;
      const result = await takeIn(user, type, pages, { emit: true, ...(keys ? { keys } : {}) });
      if (keys) {
        const replace = [{ fromDay: range.fromDay, toDay: range.toDay, keep: keys }];
        await db.transaction().execute((trx) => deps.write(trx, user, [{ type, replace }]));
      }
      if (result.invalid > 0)
        log.warn(
          { userId: user.id, type, ...range, invalid: result.invalid },
          'refetch skipped invalid records',
        );
      await addSynced(user, type, range.fromDay, range.toDay);
      return result.stored;
    });
  }

  /**
   * Removes the records of `type` the provider deleted, by identity, wherever they lie, and
   * announces them. Returns how many were stored.
   */
  async function removeDeleted(user: ConnectionRow, type: ProviderDataType, keys: readonly string[]) {
    return serialized(`${user.id}:${type}`, async () => {
      const outcome = await db
        .transaction()
        .execute((trx) => deps.write(trx, user, [{ type, remove: keys }]));
      return outcome.removed;
    });
  }

  return { syncDays, knownSettled, syncAthlete, intakeChanged, removeDeleted, sourceFor, contextFor };
}

export type ProviderFetch = ReturnType<typeof createProviderFetch>;

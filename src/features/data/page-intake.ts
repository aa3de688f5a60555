// The one way provider pages enter the store, whoever fetched them: each page's records
// validated and prepared as they come, with the raw payloads and original files they came with,
// flushed in bounded batches through the intake's write (intake.ts), so no range ever sits in
// memory whole. provider-fetch.ts decides what to fetch; this takes in what came.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { DataPage } from '../../provider-kit/data-source.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import { NormalizationError } from '../../provider-kit/normalize/errors.ts';
import type { ProviderDataType } from '../../provider-kit/types.ts';
import type { Db } from '../../store/db.ts';
import type { ConnectionRow } from '../connections/service.ts';
import { checkOriginals, keepOriginals } from '../original-files/keep.ts';
import type { OriginalFileRow } from '../original-files/repo.ts';
import {
  type BroughtSummary,
  broughtSummaries,
  DayCompanionsTooLarge,
  type DayKey,
  enterDaySections,
  keepAndReadDay,
} from '../day-companions/store.ts';
import type { BuiltDay, CompanionDay } from '../../provider-kit/day-companions.ts';
import * as coverageRepo from './coverage-repo.ts';
import { type IntakeWrite, prepareAll, RawPayloadText } from './intake.ts';
import type { PreparedRecord } from './records.ts';
import type { Refusals } from './refusals.ts';

const FLUSH_RECORDS = 200;
const FLUSH_BYTES = 2 * 1024 * 1024;
/** Days built from their kept summaries one batch holds at most (each a lock held to its commit). */
const FLUSH_DAYS = 31;
/**
 * Text the days waiting for their batch may hold (a day past it waits alone). What waits outlives
 * young-generation collections and is garbage in the old generation once written, which is what
 * raises the peak heap: the 30-day Garmin backfill bench peaked ~10-15 MB above the code before
 * the day sections with 2 MB or 1 MB waiting, and at or below it with 256 KB (a few more, smaller
 * data events: 34 instead of 26).
 */
const WAITING_DAY_BYTES = 256 * 1024;

/** A day to build from its kept summaries when its batch is written (`DataPage.companions`). */
type PendingDay = {
  key: DayKey;
  brought: BroughtSummary[];
  maxBytes: number;
  build: CompanionDay['build'];
};

export type PageIntakeDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  /** The one write path for records (intake.ts): every batch goes through it. */
  write: IntakeWrite;
  /** Where refused records are counted (the operator's metric). */
  refusals: Refusals;
  /** Raw payloads are kept this many days (0: not kept, so not even serialized). */
  rawRetentionDays: number;
};

/**
 * The original files of a page that pass their check (original-files/keep.ts) and belong to a
 * record of the page that is stored (the activity's identity is its summary_id).
 */
function originalsOfStored(
  originals: NonNullable<DataPage['originals']>,
  stored: readonly PreparedRecord[],
): ReturnType<typeof checkOriginals> {
  const checked = checkOriginals(originals);
  const storedKeys = new Set(stored.map((record) => record.identityKey));
  const keep = checked.keep.filter((file) => storedKeys.has(file.summaryId));
  const refused = [
    ...checked.refused,
    ...checked.keep
      .filter((file) => !storedKeys.has(file.summaryId))
      .map((file) => ({ summaryId: file.summaryId, problem: 'its activity was not stored' })),
  ];
  return { keep, refused };
}

export function createPageIntake(deps: PageIntakeDeps) {
  const { db, clock, log } = deps;

  /** Anything a provider's code threw, as a ProviderDataError. */
  function asProviderError(
    error: unknown,
    at: { userId: string; type: ProviderDataType },
  ): ProviderDataError {
    if (error instanceof ProviderDataError) return error;
    if (error instanceof NormalizationError) {
      // The provider answered something its documentation does not describe: say what.
      log.warn({ userId: at.userId, type: at.type, problem: error.message }, 'normalization failed');
      return new ProviderDataError('unavailable', `${at.type} normalization failed: ${error.message}`, {
        cause: error,
      });
    }
    return new ProviderDataError('unavailable', `${at.type} fetch failed`, { cause: error });
  }

  /** Provider pages, with anything the provider throws turned into a ProviderDataError. */
  async function* pagesOf(pages: AsyncIterable<DataPage>, at: { userId: string; type: ProviderDataType }) {
    const iterator = pages[Symbol.asyncIterator]();
    for (;;) {
      let step: IteratorResult<DataPage>;
      try {
        step = await iterator.next();
      } catch (error) {
        throw asProviderError(error, at);
      }
      if (step.done) return;
      yield step.value;
    }
  }

  /**
   * A day's records from every summary it holds: what its fetch brought kept, the whole day read
   * back and built by the provider's hook. Called in the day's exclusive section.
   */
  async function buildDay(
    trx: Db,
    user: ConnectionRow,
    type: ProviderDataType,
    pending: PendingDay,
  ): Promise<BuiltDay> {
    let byKind: Record<string, unknown[]>;
    try {
      byKind = await keepAndReadDay(trx, clock.now(), pending.key, pending.brought, pending.maxBytes);
    } catch (error) {
      if (!(error instanceof DayCompanionsTooLarge)) throw error;
      throw new ProviderDataError(
        'unavailable',
        `${type} summaries of ${pending.key.day} too large: ${error.message}`,
      );
    }
    try {
      return pending.build(byKind);
    } catch (error) {
      throw asProviderError(error, { userId: user.id, type });
    }
  }

  /**
   * The one way provider pages enter the store, whoever fetched them (a read, a backfill chunk,
   * a poll, a notification's refetch): validated and prepared as they come, flushed every
   * FLUSH_RECORDS records or FLUSH_BYTES bytes with the raw payloads they came from (kept for
   * re-normalization) through the intake's write (one transaction each), so no range ever sits in
   * memory whole. A day built from its kept summaries (`page.companions`) waits for its batch as
   * the text of what it brought (days holding WAITING_DAY_BYTES of it at most, and the day that
   * passes it), and is kept, read back, built and written in that batch's transaction, inside the
   * day's exclusive section: two fetches of one day, in two processes, never interleave there, so
   * whichever writes last wrote a record built from every summary either brought. With `emit`,
   * each batch is sent as a data event in its transaction; `keys` collects the identity of every
   * stored record.
   */
  async function takeIn(
    user: ConnectionRow,
    type: ProviderDataType,
    pages: AsyncIterable<DataPage>,
    options: { emit?: boolean; keys?: string[] } = {},
  ): Promise<{ stored: number; invalid: number }> {
    const emit = options.emit ?? false;
    let records: PreparedRecord[] = [];
    let raws: unknown[] = [];
    let originals: OriginalFileRow[] = [];
    let days: PendingDay[] = [];
    /** Text the waiting days hold (also counted in `bytes`). */
    let waiting = 0;
    let bytes = 0;
    let invalid = 0;
    let stored = 0;

    /** Records prepared (validated and serialized) into the batch as they come, with their payload. */
    const add = (page: { records: readonly unknown[]; raw?: unknown }): PreparedRecord[] => {
      const prepared = prepareAll(deps, { user, type, records: page.records, now: clock.now() });
      invalid += prepared.invalid;
      for (const record of prepared.stored) {
        // The parsed record is kept only when its batch is sent on; enrichers read the store.
        records.push(emit ? record : { ...record, record: null });
        options.keys?.push(record.identityKey);
        bytes += record.bytes;
      }
      if (page.raw !== undefined && deps.rawRetentionDays > 0) {
        const raw = new RawPayloadText(JSON.stringify(page.raw));
        raws.push(raw);
        bytes += raw.json.length;
      }
      return prepared.stored;
    };
    const full = () => records.length >= FLUSH_RECORDS || bytes >= FLUSH_BYTES;
    /** The records and payloads gathered so far, written in `trx`. */
    const write = async (trx: Db) => {
      if (records.length === 0 && raws.length === 0) return;
      const batch = { type, prepared: records, raws };
      records = [];
      raws = [];
      bytes = 0;
      stored += batch.prepared.length;
      await deps.write(trx, user, [batch], { emit });
    };
    const flush = async () => {
      if (records.length === 0 && raws.length === 0 && days.length === 0) return;
      const files = originals;
      const building = days;
      originals = [];
      days = [];
      waiting = 0;
      bytes = 0;
      await db.transaction().execute(async (trx) => {
        // The days' sections first, before the transaction takes any other lock (so one waiting
        // for a section holds nothing another could wait for); each is held to the commit.
        await enterDaySections(
          trx,
          building.map((day) => day.key),
        );
        // Before the write, whose events may be delivered as soon as it commits (output format fit).
        await keepOriginals(trx, {
          connectionId: user.id,
          developerId: user.developer_id,
          files,
          at: clock.now(),
        });
        // One day at a time, written whenever a batch is full. Each day is held only by the call
        // that builds it, so what it brought is let go once built, not kept through the write.
        while (building.length > 0) {
          add(await buildDay(trx, user, type, building.shift()!));
          if (full()) await write(trx);
        }
        await write(trx);
      });
    };

    for await (const page of pagesOf(pages, { userId: user.id, type })) {
      for (const rejected of page.rejected ?? []) {
        log.warn(
          { userId: user.id, type, item: rejected.item, problem: rejected.problem },
          'normalization failed',
        );
      }
      invalid += page.rejected?.length ?? 0;
      deps.refusals.normalizerRefused({ provider: user.provider, type }, page.rejected);
      for (const refused of page.unreadable ?? []) {
        // Recorded once, then left out of every fetch of this connection (and shown on its page).
        log.warn(
          { userId: user.id, type, kind: refused.kind, status: refused.status },
          'the provider refused a companion kind; skipped from now on',
        );
        await coverageRepo.addUnreadableCompanion(db, { userId: user.id, type, ...refused, at: clock.now() });
      }
      const prepared = add(page);
      if (page.originals?.length) {
        const files = originalsOfStored(page.originals, prepared);
        for (const refused of files.refused) {
          log.warn(
            { userId: user.id, type, summaryId: refused.summaryId, problem: refused.problem },
            'original file not kept',
          );
        }
        for (const file of files.keep) {
          originals.push(file);
          bytes += file.bytes.byteLength;
        }
      }
      if (page.companions) {
        const { day, summaries, maxBytes, build } = page.companions;
        const brought = broughtSummaries(summaries);
        const text = brought.reduce((sum, item) => sum + item.json.length, 0);
        waiting += text;
        bytes += text;
        days.push({ key: { connectionId: user.id, type, day }, brought, maxBytes, build });
      }
      if (full() || days.length >= FLUSH_DAYS || waiting >= WAITING_DAY_BYTES) await flush();
    }
    await flush();
    return { stored, invalid };
  }

  return takeIn;
}

export type PageIntake = ReturnType<typeof createPageIntake>;

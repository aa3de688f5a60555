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
import * as coverageRepo from './coverage-repo.ts';
import { type IntakeWrite, prepareAll, RawPayloadText } from './intake.ts';
import type { PreparedRecord } from './records.ts';
import type { Refusals } from './refusals.ts';

const FLUSH_RECORDS = 200;
const FLUSH_BYTES = 2 * 1024 * 1024;

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

  /** Provider pages, with anything the provider throws turned into a ProviderDataError. */
  async function* pagesOf(pages: AsyncIterable<DataPage>, at: { userId: string; type: ProviderDataType }) {
    const iterator = pages[Symbol.asyncIterator]();
    for (;;) {
      let step: IteratorResult<DataPage>;
      try {
        step = await iterator.next();
      } catch (error) {
        if (error instanceof ProviderDataError) throw error;
        if (error instanceof NormalizationError) {
          // The provider answered something its documentation does not describe: say what.
          log.warn({ userId: at.userId, type: at.type, problem: error.message }, 'normalization failed');
          throw new ProviderDataError('unavailable', `${at.type} normalization failed: ${error.message}`, {
            cause: error,
          });
        }
        throw new ProviderDataError('unavailable', `${at.type} fetch failed`, { cause: error });
      }
      if (step.done) return;
      yield step.value;
    }
  }

  /**
   * The one way provider pages enter the store, whoever fetched them (a read, a backfill chunk,
   * a poll, a notification's refetch): validated and prepared as they come, flushed every
   * FLUSH_RECORDS records or FLUSH_BYTES bytes with the raw payloads they came from (kept for
   * re-normalization) through the intake's write (one transaction each), so no range ever sits in
   * memory whole. With `emit`, each batch is sent as a data event in its transaction; `keys`
   * collects the identity of every stored record.
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
    let bytes = 0;
    let invalid = 0;
    let stored = 0;
    const flush = async () => {
      if (records.length === 0 && raws.length === 0) return;
      const batch = { type, prepared: records, raws };
      const files = originals;
      records = [];
      raws = [];
      originals = [];
      bytes = 0;
      stored += batch.prepared.length;
      await db.transaction().execute(async (trx) => {
        // Before the write, whose events may be delivered as soon as it commits (output format fit).
        await keepOriginals(trx, {
          connectionId: user.id,
          developerId: user.developer_id,
          files,
          at: clock.now(),
        });
        await deps.write(trx, user, [batch], { emit });
      });
    };
    for await (const page of pagesOf(pages, { userId: user.id, type })) {
      // Prepared (validated and serialized) as they come, so a batch is bounded by its real size.
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
      const prepared = prepareAll(deps, { user, type, records: page.records, now: clock.now() });
      invalid += prepared.invalid;
      for (const record of prepared.stored) {
        // The parsed record is kept only when its batch is sent on; enrichers read the store.
        records.push(emit ? record : { ...record, record: null });
        options.keys?.push(record.identityKey);
        bytes += record.bytes;
      }
      if (page.originals?.length) {
        const files = originalsOfStored(page.originals, prepared.stored);
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
      if (page.raw !== undefined && deps.rawRetentionDays > 0) {
        const raw = new RawPayloadText(JSON.stringify(page.raw));
        raws.push(raw);
        bytes += raw.json.length;
      }
      if (records.length >= FLUSH_RECORDS || bytes >= FLUSH_BYTES) await flush();
    }
    await flush();
    return { stored, invalid };
  }

  return takeIn;
}

export type PageIntake = ReturnType<typeof createPageIntake>;

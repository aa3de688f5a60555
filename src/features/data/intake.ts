// The one write path for records, whoever brings them (a provider's pages, a push, an SDK
// upload's rebuilt days, an export import, a sandbox arrival): prepare, diff against the stored
// days once, run every enricher once over the changed days, store, then build the events last
// from what was stored. Enrichers run before the store so that the write's own records are
// written once, with their derived fields (the stored neighbours whose fields move are rewritten
// by the enricher). One call is one transaction's worth of a connection's records, of any number
// of types: an enricher that reads across types (scores read dailies, sleeps and activities) sees
// all of them before any event is built, so a daily written before the activity that moves its
// training load is still sent with the load the store holds.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import { type DataTypeName, isDataTypeName } from '../../model/index.ts';
import { externalPlannedWorkout } from '../../model/planned-workout-current.ts';
import type { ProviderDataType } from '../../provider-kit/types.ts';
import type { Db } from '../../store/db.ts';
import { stampMostRecentData } from '../connections/stamps-repo.ts';
import { type ConnectionRow, toWireUser } from '../connections/service.ts';
import {
  buildAthleteEvent,
  buildDataDeletedEvent,
  buildDataEvent,
  DELETION_MARKED_TYPES,
  type JsonObject,
  UPLOAD_TYPE_DELETE,
} from './events.ts';
import type { NormalizationError } from '../../provider-kit/normalize/errors.ts';
import { identityOf, type PreparedRecord, prepareRecord } from './records.ts';
import { modelRefusal, type Refusals } from './refusals.ts';
import { type RewrittenFields, withFields } from './record-rewrites.ts';
import * as rawPayloadsRepo from './raw-payloads-repo.ts';
import * as repo from './repo.ts';
import { type DataEmitItem, type DataWebhooks, emitDataEvents } from './webhook-emit.ts';

/**
 * A raw payload serialized as its page arrived: its size counts towards the batch's bytes, and
 * the parsed answer (a day of Garmin summaries is megabytes of objects) is released instead of
 * waiting for the batch's records to fill it (stored as the text it is).
 */
export class RawPayloadText {
  readonly json: string;
  constructor(json: string) {
    this.json = json;
  }
}

/** A change to a connection's stored records: the local days whose records were written or removed. */
export type RecordsChange = { user: ConnectionRow; type: ProviderDataType; days: readonly string[] };
export type RecordsChangedHook = (trx: Db, change: RecordsChange) => Promise<void>;

/** A stored record an enricher rewrote: the top-level fields it changed (undefined: taken out). */
export type RewrittenRecord = { type: DataTypeName; key: string; fields: RewrittenFields };

/** What an enricher is told of a write, before the write stores its records (its removals are done). */
export type WriteInProgress = {
  /** Every type's changed days: what the write stores and what it removed. */
  changes: readonly RecordsChange[];
  /**
   * The records of `type` the write is about to store (their summaries: sample arrays emptied),
   * which stand in for whatever the store holds under the same identity.
   */
  incoming: (type: DataTypeName) => readonly { key: string; day: string; record: Record<string, unknown> }[];
};

/**
 * A feature that derives fields of records from their neighbours (features/scores). Told once per
 * write, in its transaction, before the write stores anything: it rewrites the stored records
 * whose derived fields the change moves (`rewriteRecords`), and returns the fields to set on the
 * write's own records, which are then stored (and sent) with them.
 */
export type Enricher = {
  enrich(trx: Db, user: ConnectionRow, write: WriteInProgress): Promise<readonly RewrittenRecord[]>;
};

/**
 * Stored records of local days [fromDay, toDay) that a batch replaces: those it does not hold
 * (nor `keep`) are removed. `owns` narrows which stored rows of the range are the batch's to
 * replace (a whole-day rebuild owns a night by the day its key names, not the day it began).
 */
export type DayScope = {
  fromDay: string;
  toDay: string;
  /** Identities kept besides the batch's own (stored by earlier transactions of the same fetch). */
  keep?: readonly string[];
  owns?: (row: { key: string; day: string }) => boolean;
};

export type IntakeBatch = {
  type: ProviderDataType;
  /** Records as a source made them: validated against the model here (refusals counted, skipped). */
  records?: readonly unknown[];
  /** Records already validated (a provider fetch prepares page by page to bound its memory). */
  prepared?: readonly PreparedRecord[];
  /** The provider payloads the records came from, kept for re-normalization (when retention allows). */
  raws?: readonly unknown[];
  replace?: readonly DayScope[];
  /** Identities removed wherever they lie (deleted at the provider); removed before the batch is stored. */
  remove?: readonly string[];
};

export type IntakeOptions = {
  /** Sends what was stored to the developer as data events (default true). */
  emit?: boolean;
  /** Announces what was removed as events (default: as `emit`). */
  announceRemovals?: boolean;
};

export type BatchOutcome = { type: ProviderDataType; stored: number; invalid: number; removed: number };
export type IntakeOutcome = { stored: number; invalid: number; removed: number; batches: BatchOutcome[] };

export type IntakeDeps = {
  clock: Clock;
  log: Logger;
  refusals: Refusals;
  webhooks: DataWebhooks;
  /** Days raw provider payloads are kept; 0 keeps none. */
  rawRetentionDays: number;
  /** Read at every write: features register after the data service is made. */
  enrichers: readonly Enricher[];
  changeHandlers: readonly RecordsChangedHook[];
};

/**
 * Validates every record against the model (compiled schemas, records.ts) before it is stored. A
 * record the model refuses becomes a NormalizationError naming the provider, the type, the
 * payload's identity and the field; the refusals are counted and logged (warn, with their
 * number), never stored, and the rest of the batch is kept.
 */
export function prepareAll(
  deps: { log: Logger; refusals: Refusals },
  input: { user: ConnectionRow; type: ProviderDataType; records: readonly unknown[]; now: Date },
): { stored: PreparedRecord[]; invalid: number } {
  const stored: PreparedRecord[] = [];
  const refused: NormalizationError[] = [];
  const at = { userId: input.user.id, provider: input.user.provider, type: input.type };
  for (const [index, record] of input.records.entries()) {
    const prepared = prepareRecord(input.type, record, input.now);
    if (prepared.ok) stored.push(prepared.value);
    else refused.push(modelRefusal(at, identityOf(record), index, prepared));
  }
  deps.refusals.modelRefused(deps.log, at, refused);
  return { stored, invalid: refused.length };
}

/** The metadata object of a record (an empty one when it has none). */
const metadataOf = (record: JsonObject) =>
  (typeof record.metadata === 'object' && record.metadata !== null ? record.metadata : {}) as JsonObject;

/**
 * Records the provider deleted (already removed): an activity or a day as its own data event, each
 * record marked `upload_type` 4 (Delete), the contract's mark; any other type as one
 * `data_deleted` event naming each record's metadata.
 */
function removalEvent(
  user: ConnectionRow,
  type: ProviderDataType,
  removed: readonly repo.RemovedRecord[],
): DataEmitItem | null {
  if (removed.length === 0 || !isDataTypeName(type)) return null;
  const wireUser = toWireUser(user);
  const records = removed.map((row) => JSON.parse(row.summary) as JsonObject);
  const event = DELETION_MARKED_TYPES.has(type)
    ? buildDataEvent(type, {
        user: wireUser,
        data: records.map((record) => ({
          ...record,
          metadata: { ...metadataOf(record), upload_type: UPLOAD_TYPE_DELETE },
        })),
      })
    : buildDataDeletedEvent({ user: wireUser, dataType: type, metadata: records.map(metadataOf) });
  return { event, options: { userId: user.id } };
}

/** Stored records as one data event: each as stored, with what the enrichers set on it. */
function recordsEvent(
  user: ConnectionRow,
  type: ProviderDataType,
  stored: readonly PreparedRecord[],
): DataEmitItem {
  const wireUser = toWireUser(user);
  const data = stored.map((record) =>
    type === 'plannedWorkout'
      ? (externalPlannedWorkout(record.record as JsonObject) as JsonObject)
      : (record.record as JsonObject),
  );
  const event = isDataTypeName(type)
    ? buildDataEvent(type, { user: wireUser, data })
    : buildAthleteEvent({ user: wireUser, athlete: data[0]! });
  return { event, options: { userId: user.id } };
}

/**
 * The write's records of a type as enrichers read them (summaries, parsed once on demand); each
 * parse is kept in `parsed` by its prepared record, so setting an enricher's fields on it does not
 * parse it again.
 */
function incomingOf(
  batches: readonly IntakeBatch[],
  prepared: readonly { stored: readonly PreparedRecord[] }[],
  summaries: WeakMap<PreparedRecord, Record<string, unknown>>,
): WriteInProgress['incoming'] {
  const parsed = new Map<string, { key: string; day: string; record: Record<string, unknown> }[]>();
  return (type) => {
    let list = parsed.get(type);
    if (!list) {
      // The last of equal identities is the one stored.
      const byKey = new Map<string, { key: string; day: string; record: Record<string, unknown> }>();
      for (const [index, batch] of batches.entries()) {
        if (batch.type !== type) continue;
        for (const record of prepared[index]!.stored) {
          const summary = JSON.parse(record.summary) as Record<string, unknown>;
          summaries.set(record, summary);
          byKey.set(record.identityKey, { key: record.identityKey, day: record.anchorDay, record: summary });
        }
      }
      list = [...byKey.values()];
      parsed.set(type, list);
    }
    return list;
  };
}

/** Sorted distinct days. */
const daysOf = (days: Iterable<string>) => [...new Set(days)].sort();

export function createIntake(deps: IntakeDeps) {
  const { clock, log } = deps;

  /** Removes what each batch replaces or names, in one pass per batch: the diff against the store. */
  async function diff(
    trx: Db,
    user: ConnectionRow,
    batch: IntakeBatch,
    incoming: readonly PreparedRecord[],
  ): Promise<repo.RemovedRecord[]> {
    const removed: repo.RemovedRecord[] = [];
    if (batch.remove && batch.remove.length > 0)
      removed.push(
        ...(await repo.removeRecords(trx, { userId: user.id, type: batch.type, keys: batch.remove })),
      );
    for (const scope of batch.replace ?? []) {
      const keep = [...incoming.map((record) => record.identityKey), ...(scope.keep ?? [])];
      if (!scope.owns) {
        // One statement: whatever the range holds that is not kept goes.
        removed.push(
          ...(await repo.deleteRecordsOfDaysExcept(trx, {
            userId: user.id,
            type: batch.type,
            startDate: scope.fromDay,
            endDate: scope.toDay,
            keep,
          })),
        );
        continue;
      }
      const kept = new Set(keep);
      const stored = await repo.keysOnDays(trx, {
        userId: user.id,
        type: batch.type,
        fromDay: scope.fromDay,
        toDay: scope.toDay,
      });
      const stale = stored.filter((row) => scope.owns!(row) && !kept.has(row.key)).map((row) => row.key);
      removed.push(...(await repo.removeRecords(trx, { userId: user.id, type: batch.type, keys: stale })));
    }
    return removed;
  }

  /**
   * Writes a connection's batches in the caller's transaction: each prepared, its replaced days
   * diffed and removed; the enrichers once over every changed day; the records stored; the change
   * handlers told; and last the events (removals first, then each batch's records as stored).
   */
  async function write(
    trx: Db,
    user: ConnectionRow,
    batches: readonly IntakeBatch[],
    options: IntakeOptions = {},
  ): Promise<IntakeOutcome> {
    const now = clock.now();
    const emit = options.emit ?? true;
    const announce = options.announceRemovals ?? emit;
    const prepared = batches.map((batch) =>
      batch.records
        ? prepareAll(
            { log, refusals: deps.refusals },
            { user, type: batch.type, records: batch.records, now },
          )
        : { stored: [...(batch.prepared ?? [])], invalid: 0 },
    );

    const removals: repo.RemovedRecord[][] = [];
    for (const [index, batch] of batches.entries())
      removals.push(await diff(trx, user, batch, prepared[index]!.stored));

    // The changed days of each type, whichever batch (or removal) changed them.
    const changedDays = new Map<ProviderDataType, string[]>();
    for (const [index, batch] of batches.entries()) {
      const days = changedDays.get(batch.type) ?? [];
      for (const record of prepared[index]!.stored) days.push(record.anchorDay);
      for (const row of removals[index]!) days.push(row.day);
      changedDays.set(batch.type, days);
    }
    const changes: RecordsChange[] = [];
    for (const [type, days] of changedDays)
      if (days.length > 0) changes.push({ user, type, days: daysOf(days) });

    // Enrichers once, before anything is stored: the write's records are stored with their fields.
    if (changes.length > 0 && deps.enrichers.length > 0) {
      const summaries = new WeakMap<PreparedRecord, Record<string, unknown>>();
      const write: WriteInProgress = { changes, incoming: incomingOf(batches, prepared, summaries) };
      for (const enricher of deps.enrichers) {
        const fields = new Map<string, RewrittenFields>();
        for (const rewritten of await enricher.enrich(trx, user, write))
          fields.set(`${rewritten.type}\u0000${rewritten.key}`, {
            ...fields.get(`${rewritten.type}\u0000${rewritten.key}`),
            ...rewritten.fields,
          });
        if (fields.size === 0) continue;
        for (const [index, batch] of batches.entries()) {
          if (!isDataTypeName(batch.type)) continue;
          const type = batch.type;
          const list = prepared[index]!.stored;
          for (const [position, record] of list.entries()) {
            const set = fields.get(`${type}\u0000${record.identityKey}`);
            if (!set) continue;
            const result = withFields(type, record, set, now, summaries.get(record));
            if ('prepared' in result) list[position] = result.prepared;
            else
              log.warn(
                { userId: user.id, type, problem: result.problem },
                'an enriched record failed validation; stored as it came',
              );
          }
        }
      }
    }

    let stored = 0;
    for (const [index, batch] of batches.entries()) {
      await repo.upsertRecords(trx, user.id, batch.type, prepared[index]!.stored, now);
      stored += prepared[index]!.stored.length;
    }
    // Once per write: the user's "most recent data" is when records last came in.
    if (stored > 0) await stampMostRecentData(trx, user.id, now);
    if (deps.rawRetentionDays > 0) {
      for (const batch of batches)
        for (const payload of batch.raws ?? [])
          await rawPayloadsRepo.insertRawPayload(trx, {
            userId: user.id,
            provider: user.provider,
            type: batch.type,
            fetchedAt: now,
            ...(payload instanceof RawPayloadText ? { payloadJson: payload.json } : { payload }),
          });
    }
    for (const handler of deps.changeHandlers) for (const change of changes) await handler(trx, change);

    // Events last, from what is stored now.
    const items: DataEmitItem[] = [];
    if (announce) {
      for (const [index, batch] of batches.entries()) {
        const item = removalEvent(user, batch.type, removals[index]!);
        if (item) items.push(item);
      }
    }
    if (emit) {
      for (const [index, batch] of batches.entries()) {
        const records = prepared[index]!.stored;
        if (records.length > 0) items.push(recordsEvent(user, batch.type, records));
      }
    }
    if (items.length > 0) await emitDataEvents(deps.webhooks, trx, user.developer_id, items);

    const outcomes = batches.map((batch, index) => ({
      type: batch.type,
      stored: prepared[index]!.stored.length,
      invalid: prepared[index]!.invalid,
      removed: removals[index]!.length,
    }));
    return {
      stored,
      invalid: outcomes.reduce((sum, outcome) => sum + outcome.invalid, 0),
      removed: outcomes.reduce((sum, outcome) => sum + outcome.removed, 0),
      batches: outcomes,
    };
  }

  return { write };
}

export type Intake = ReturnType<typeof createIntake>;
export type IntakeWrite = Intake['write'];

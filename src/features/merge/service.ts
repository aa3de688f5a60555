// The merged view: one person (a developer's connections sharing a reference_id) read as one set
// of records, each with its provenance (engine/), and the `merged` webhook events that follow a
// change to a person's day. Reads go through the data feature exactly as per-connection reads do
// (each connection charged and synced), so the merge adds rules, never a second read path.
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { Config } from '../../core/config.ts';
import { invalidParameter, notFound } from '../../core/errors.ts';
import { newUuid } from '../../core/ids.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { addDays, localIsoDate } from '../../model/time.ts';
import { samplePaths, stripPaths } from '../../model/strip-samples.ts';
import type { ProviderCatalog } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import { retryTransient } from '../../store/transient-retry.ts';
import {
  type ConnectionRow,
  type ConnectionsService,
  findPersonConnections,
} from '../connections/service.ts';
import type { Developer } from '../developers/service.ts';
import { type DataWindow, marginsOf, parseWindow, type RawReadQuery, splitWindow } from '../data/params.ts';
import { DATA_SENT_MESSAGE, toConnection } from '../data/reads.ts';
import type { DataService } from '../data/service.ts';
import type { WebhooksService } from '../delivery/service.ts';
import { type MergedRecord, mergeRecords, MERGED_TYPES, type MergedType } from './engine/merge-records.ts';
import type { SourcedRecord } from './engine/provenance.ts';
import { deviceKindNamed, type MergeFamily, type Priorities } from './engine/sources.ts';
import { buildMergedEvent, mergedEnvelope, type Person } from './events.ts';
import { validatePriorities } from './priorities.ts';
import { type MergeSettings, readSettings, writeSettings } from './repo.ts';
import { mergeSettings } from './settings.ts';

export const MERGE_CHANGED_QUEUE = 'merge.person-changed';
export const MERGE_DELIVER_QUEUE = 'merge.deliver-request';

/** Days merged at once: a long window is merged part by part, so memory does not grow with it. */
const PART_DAYS = 28;

/**
 * A change to a person's recent days goes ahead of changes to older ones: a connection's first
 * sync (or an export's import) queues a merge for every day of its history, and a change that
 * happens now must not wait behind them. Recent is today and the two days before by UTC, so that
 * every time zone's today is in (a person's days are local dates, up to 14 hours off UTC's).
 */
const RECENT_DAYS = 2;
export const RECENT_DAY_PRIORITY = 1;

/** The job priority of a merge of `day` (pg-boss fetches higher priorities first). */
export function mergePriority(day: string, nowMs: number): number {
  return day >= addDays(localIsoDate(nowMs), -RECENT_DAYS) ? RECENT_DAY_PRIORITY : 0;
}

/** One person's day of one type changed; sent once per person, type and day within the delay. */
export type PersonChangedJob = { developerId: string; referenceId: string; type: MergedType; day: string };
/** A merged read answered to the webhook (`to_webhook=true`). */
export type MergedDeliverJob = {
  developerId: string;
  referenceId: string;
  type: MergedType;
  /** The request's own dates, parsed again by the job. */
  window: { start_date: string; end_date?: string };
  withSamples: boolean;
  reference: string;
};

export const isMergedType = (type: string): type is MergedType =>
  (MERGED_TYPES as readonly string[]).includes(type);

export type MergeDeps = {
  db: Db;
  jobs: JobQueue;
  clock: Clock;
  log: Logger;
  config: Config;
  providers: ProviderCatalog;
  data: Pick<DataService, 'admitAll' | 'syncWindow' | 'recordsOf' | 'daysWithRecords' | 'onRecordsChanged'>;
  connections: Pick<ConnectionsService, 'onReferenceChanged'>;
  webhooks: Pick<WebhooksService, 'emit'>;
};

export type MergedReadResult = { status: number; headers: Record<string, string>; body: Readable | object };

export function createMergeService(deps: MergeDeps) {
  const { db, clock, log, providers } = deps;
  const { eventDelaySeconds } = deps.config.settings.get(mergeSettings);

  const personOf = (referenceId: string, users: readonly ConnectionRow[]): Person => ({
    reference_id: referenceId,
    connections: users.map(toConnection),
  });

  /**
   * Every connection's records of the window, merged by the developer's priorities, a few weeks
   * at a time so that a long window never holds more than one part's records (and samples). A
   * session near a part's edge is merged with the records of the day on either side, and given
   * out by the part its lead belongs to, so no session is split or given twice.
   */
  async function* mergedParts(
    developerId: string,
    users: readonly ConnectionRow[],
    type: MergedType,
    window: DataWindow,
  ): AsyncGenerator<MergedRecord[]> {
    const settings = await readSettings(db, developerId);
    const sessions = type === 'activity' || type === 'sleep';
    const load = async (part: DataWindow) => {
      const records: SourcedRecord[] = [];
      for (const user of users) {
        const usualKind = providers.get(user.provider)?.declaration.deviceKind ?? 'app';
        for (const stored of await deps.data.recordsOf(user, type, part)) {
          // The device the record names, when it names its kind; else the provider's usual one.
          const deviceKind = deviceKindNamed(stored.record) ?? usualKind;
          const source = { connectionId: user.id, provider: user.provider, deviceKind };
          records.push({ source, key: stored.key, record: stored.record });
        }
      }
      return records;
    };
    const keyOf = (connectionId: string, key: string) => `${connectionId}\u0000${key}`;
    const parts = splitWindow(window, PART_DAYS);
    for (const [index, part] of parts.entries()) {
      const core = await load(part);
      if (!sessions) {
        yield mergeRecords(type, core, settings.priorities);
        continue;
      }
      const own = new Set(core.map((record) => keyOf(record.source.connectionId, record.key)));
      const [before, after] = marginsOf(part, 1);
      const margins = [await load(before), await load(after)];
      // Records of a margin outside the whole window lead no part of their own: a session they
      // lead is given out here when one of its records is this part's.
      const outside = new Set(
        [index === 0 ? margins[0]! : [], index === parts.length - 1 ? margins[1]! : []]
          .flat()
          .map((record) => keyOf(record.source.connectionId, record.key)),
      );
      const around = margins
        .flat()
        .filter((record) => !own.has(keyOf(record.source.connectionId, record.key)));
      yield mergeRecords(type, [...core, ...around], settings.priorities).filter((record) => {
        const { sources, lead } = record.provenance;
        const keys = sources.map((source) => keyOf(source.connection_id, source.record));
        return own.has(keys[lead]!) || (outside.has(keys[lead]!) && keys.some((key) => own.has(key)));
      });
    }
  }

  /** Without samples: every sample array emptied, as the per-connection reads do, and their sources with them. */
  const withoutSamples = (type: MergedType, records: readonly MergedRecord[]) =>
    records.map((record) => ({
      ...stripPaths(record, samplePaths[type]),
      provenance: { ...record.provenance, samples: {} },
    }));

  async function activeConnections(developerId: string, referenceId: string): Promise<ConnectionRow[]> {
    const users = await findPersonConnections(db, developerId, referenceId);
    if (users.length === 0) {
      throw notFound(`no person with reference_id ${referenceId}: no active connection of yours carries it`);
    }
    return users;
  }

  async function read(
    developer: Developer,
    input: { referenceId: string; type: MergedType; query: RawReadQuery },
  ): Promise<MergedReadResult> {
    const found = await activeConnections(developer.id, input.referenceId);
    const { params, users, headers } = await deps.data.admitAll(developer, {
      type: input.type,
      userIds: found.map((user) => user.id),
      query: input.query,
    });
    const person = personOf(input.referenceId, users);
    if (params.toWebhook) {
      const reference = newUuid();
      const job: MergedDeliverJob = {
        developerId: developer.id,
        referenceId: input.referenceId,
        type: input.type,
        window: {
          start_date: input.query.start_date!,
          ...(input.query.end_date ? { end_date: input.query.end_date } : {}),
        },
        withSamples: params.withSamples,
        reference,
      };
      await deps.jobs.send(MERGE_DELIVER_QUEUE, job);
      return {
        status: 200,
        headers: { ...headers, 'service-reference': reference },
        body: { status: 'success', type: input.type, reference, message: DATA_SENT_MESSAGE, person },
      };
    }
    const window = params.window!;
    for (const user of users) await deps.data.syncWindow(user, input.type, window);
    const parts = mergedParts(developer.id, users, input.type, window);
    const shown = (records: readonly MergedRecord[]) =>
      params.withSamples ? records : withoutSamples(input.type, records);
    // Streamed: the envelope, then each part's records as it is merged.
    async function* body() {
      yield `{"person":${JSON.stringify(person)},"data":[`;
      let first = true;
      for await (const records of parts) {
        for (const record of shown(records)) {
          yield `${first ? '' : ','}${JSON.stringify(record)}`;
          first = false;
        }
      }
      yield `],"type":${JSON.stringify(input.type)}}`;
    }
    return {
      status: 200,
      headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
      body: Readable.from(body()),
    };
  }

  /** Sends a person's merged records of a day (or a requested window) as `merged` events. */
  async function emitMerged(job: {
    developerId: string;
    referenceId: string;
    users: readonly ConnectionRow[];
    type: MergedType;
    window: DataWindow;
    day: string | null;
    withSamples: boolean;
    reference: string | null;
  }): Promise<void> {
    const person = personOf(job.referenceId, job.users);
    // One event per part of the window (a day's change is one part), all with the same reference.
    for await (const records of mergedParts(job.developerId, job.users, job.type, job.window)) {
      const event = buildMergedEvent({
        type: job.type,
        person,
        day: job.day,
        data: job.withSamples ? records : withoutSamples(job.type, records),
        reference: job.reference,
      });
      await db
        .transaction()
        .execute((trx) => deps.webhooks.emit(trx, job.developerId, mergedEnvelope(event)));
    }
  }

  /**
   * Queues a person's days to be merged and sent again after the delay, if the developer opted
   * in. The queue is `stately`: while one job of a person, type and day waits, another send adds
   * nothing.
   */
  async function queuePersonDays(
    trx: Db,
    developerId: string,
    referenceId: string,
    type: MergedType,
    days: readonly string[],
  ): Promise<void> {
    if (days.length === 0) return;
    const settings = await readSettings(trx, developerId);
    if (!settings.mergedEvents) return;
    const now = clock.now().getTime();
    const startAfter = new Date(now + eventDelaySeconds * 1000);
    await deps.jobs.sendMany(
      MERGE_CHANGED_QUEUE,
      days.map((day) => ({
        data: { developerId, referenceId, type, day },
        options: {
          singletonKey: `${developerId}:${referenceId}:${type}:${day}`,
          startAfter,
          priority: mergePriority(day, now),
        },
      })),
      trx,
    );
  }

  /** A connection of a person changed some days: that person's days are merged again. */
  deps.data.onRecordsChanged(async (trx, change) => {
    const { user } = change;
    if (!user.reference_id || user.status !== 'active' || !isMergedType(change.type)) return;
    await queuePersonDays(trx, user.developer_id, user.reference_id, change.type, change.days);
  });

  /**
   * A connection moved between people: every day it holds records on changes for the person it
   * left (its records are gone from their merge) and for the person it joined.
   */
  deps.connections.onReferenceChanged(async (trx, { user, from, to }) => {
    if (user.status !== 'active') return;
    const people = [from, to].filter((reference): reference is string => reference !== null);
    for (const type of MERGED_TYPES) {
      const days = await deps.data.daysWithRecords(trx, user.id, type);
      for (const referenceId of people)
        await queuePersonDays(trx, user.developer_id, referenceId, type, days);
    }
  });

  /** The settings as the API shows them. */
  const wireSettings = (settings: MergeSettings) => ({
    priorities: Object.fromEntries(
      Object.entries(settings.priorities).map(([family, order]) => [family, [...order]]),
    ),
    merged_events: settings.mergedEvents,
  });

  return {
    read,

    async settings(developerId: string) {
      return wireSettings(await readSettings(db, developerId));
    },

    async updateSettings(developerId: string, body: Record<string, unknown>) {
      const unknown = Object.keys(body).filter((key) => key !== 'priorities' && key !== 'merged_events');
      if (unknown.length > 0)
        throw invalidParameter(
          'body',
          `unknown member ${unknown.join(', ')}; expected priorities and/or merged_events`,
        );
      const current = await readSettings(db, developerId);
      const ids = providers.list().map((provider) => provider.id);
      const given =
        body['priorities'] === undefined
          ? {}
          : validatePriorities(body['priorities'] as Record<string, unknown>, ids);
      // Families not named keep their order; an empty order gives the family back its default.
      const priorities: Priorities = { ...current.priorities, ...given };
      for (const [family, order] of Object.entries(given))
        if (order.length === 0) delete priorities[family as MergeFamily];
      const next = {
        priorities,
        mergedEvents: (body['merged_events'] as boolean | undefined) ?? current.mergedEvents,
      };
      await writeSettings(db, developerId, next, clock.now());
      log.info({ developerId, families: Object.keys(next.priorities) }, 'merge settings changed');
      return wireSettings(next);
    },

    /**
     * A database that gave the merge up for a passing reason (a deadlock, a lost connection) gets
     * it again at once: failed, the job would wait out the queue's retry delay, and a later change
     * of the day could not make up for it if it failed the same way (the queue keeps one job per
     * day in retry; another failing meanwhile is dropped to `failed`). The merge only reads and
     * emits one event, so a try whose commit was lost sends the day's event again, which is what a
     * later change would do.
     */
    async personChanged(job: PersonChangedJob): Promise<void> {
      const window = parseWindow({ start_date: job.day, end_date: addDays(job.day, 1) }, clock.now());
      await retryTransient(
        'merged event of a changed day',
        async () => {
          const users = await findPersonConnections(db, job.developerId, job.referenceId);
          await emitMerged({ ...job, users, window, day: job.day, withSamples: false, reference: null });
        },
        log,
      );
    },

    async deliverRequest(job: MergedDeliverJob): Promise<void> {
      const window = parseWindow(job.window, clock.now());
      // As a per-connection read sent to the webhook does: the days are synced first (a provider
      // failure fails the job, and the queue retries it).
      const users = await findPersonConnections(db, job.developerId, job.referenceId);
      for (const user of users) await deps.data.syncWindow(user, job.type, window);
      await emitMerged({ ...job, users, window, day: null });
    },
  };
}

export type MergeService = ReturnType<typeof createMergeService>;

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [MERGE_CHANGED_QUEUE]: PersonChangedJob;
    [MERGE_DELIVER_QUEUE]: MergedDeliverJob;
  }
}

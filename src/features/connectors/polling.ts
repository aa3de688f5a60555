// Scheduled sync for providers that push nothing. Each connection has one durable poll job
// that, when it has run, queues the next one `<ID>_POLL_MINUTES` later (a chain, so a deleted
// or disconnected user simply ends it and a reconnection starts a new one). A poll asks the
// provider where data changed since the previous poll, fetches those days with the user's
// token and sends what it finds as data events, exactly as a notification would.
import type { Logger } from 'pino';
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { findConnectionById } from '../connections/repo.ts';
import type { ConnectionRow } from '../connections/service.ts';
import type { DataSourceContext } from '../../provider-kit/data-source.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { ProviderCatalog, ResolvedProvider } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import type { NotificationSinks } from './notifications.ts';
import { refetchChanged } from './refetch.ts';
import { providerSyncSettings } from './settings.ts';

export const POLL_QUEUE = 'connectors.poll';
/** `since`: ISO instant of the previous poll; changes after it are looked for. */
export type PollJob = { userId: string; provider: string; since: string };

export function pollMinutesOf(config: Config, provider: ResolvedProvider): number | null {
  const declared = provider.connector?.api?.poll?.minutes;
  if (declared === undefined) return null;
  return config.settings.forProvider(providerSyncSettings, provider.id).pollMinutes ?? declared;
}

export function createPolling(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  jobs: JobQueue;
  log: Logger;
  providers: ProviderCatalog;
  dataContext(user: ConnectionRow): DataSourceContext;
}) {
  const { db, clock, jobs, log } = deps;

  async function schedule(trx: Db | null, job: PollJob): Promise<void> {
    const provider = deps.providers.get(job.provider);
    const minutes = provider ? pollMinutesOf(deps.config, provider) : null;
    if (minutes === null) return;
    await jobs.send(POLL_QUEUE, job, {
      startAfter: new Date(clock.now().getTime() + minutes * 60_000),
      ...(trx ? { trx } : {}),
    });
  }

  /** Fetches the changed days and sends them on; returns the records sent. */
  async function pollOnce(
    provider: ResolvedProvider,
    user: ConnectionRow,
    since: Date,
    sinks: NotificationSinks,
  ) {
    const poll = provider.connector?.api?.poll;
    const source = provider.connector?.data;
    const context = deps.dataContext(user);
    if (!poll || !source || !context.http) return 0;
    const changed = await poll.changes({ http: context.http, since, now: clock.now() });
    return changed ? refetchChanged(db, provider, user, context, changed, sinks) : 0;
  }

  return {
    /** A connection became active (in its transaction): its first poll, one interval from now. */
    start: (trx: Db, connection: { userId: string; provider: string }) =>
      schedule(trx, { ...connection, since: clock.now().toISOString() }),

    async run(job: PollJob, sinks: NotificationSinks): Promise<void> {
      const provider = deps.providers.get(job.provider);
      const user = await findConnectionById(db, job.userId);
      // Deleted, disconnected or broken: the chain ends; a reconnection starts a new one.
      if (!provider || !user || user.status !== 'active') return;
      const startedAt = clock.now();
      let since = new Date(job.since);
      if (user.active) {
        try {
          const sent = await pollOnce(provider, user, since, sinks);
          since = startedAt;
          log.debug({ provider: provider.id, userId: user.id, sent }, 'poll done');
        } catch (error) {
          if (error instanceof ProviderDataError && error.kind === 'unauthorized') return;
          // Outages and rate limits: the next poll looks again from the same point.
          log.warn({ provider: provider.id, userId: user.id, err: error }, 'poll failed; next one retries');
        }
      }
      await schedule(null, { userId: user.id, provider: provider.id, since: since.toISOString() });
    },
  };
}

export type Polling = ReturnType<typeof createPolling>;

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [POLL_QUEUE]: PollJob;
  }
}

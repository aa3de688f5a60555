// Simulated providers have no one to push data to us, so a recurring job plays that
// part: every SANDBOX_ARRIVAL_MINUTES it asks each such provider what "arrived" for each
// connected, active user since the previous run, stores it and pushes it as data events (no
// reference: nobody asked), so a webhook integration can be built against the sandbox.
// Generic over providers: any data source with an `arrivals` hook takes part. The interval is
// declared in settings.ts.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { ProviderCatalog } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import type { ConnectionRow } from '../connections/service.ts';
import { pageActiveUsersOfProvider } from '../connections/listing-repo.ts';
import type { IntakeWrite } from './intake.ts';
import type { ProviderFetch } from './provider-fetch.ts';
import type { NoPayload } from '../../jobs/queues.ts';

export const ARRIVALS_QUEUE = 'data.provider-arrivals';
const USER_PAGE = 100;

export type ArrivalsDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  providers: ProviderCatalog;
  sync: ProviderFetch;
  /** The one write path (intake.ts): a user's arrivals of every type in one write. */
  write: IntakeWrite;
};

/**
 * One arrivals pass for the window (now − interval, now]. Users connected after the window
 * opened are left for the next pass: their history is read through the API, and a user who
 * just connected should not receive a burst of "new" data.
 */
export async function runArrivals(
  deps: ArrivalsDeps,
  intervalMinutes: number,
): Promise<{ users: number; records: number }> {
  const until = deps.clock.now();
  const since = new Date(until.getTime() - intervalMinutes * 60_000);
  let users = 0;
  let records = 0;
  for (const provider of deps.providers.list()) {
    const source = provider.connector?.data;
    if (!provider.enabled || !source?.arrivals) continue;
    let afterId: string | null = null;
    for (;;) {
      const page: ConnectionRow[] = await pageActiveUsersOfProvider(deps.db, {
        provider: provider.id,
        connectedBy: since,
        afterId,
        limit: USER_PAGE,
      });
      for (const user of page) {
        try {
          const arrived = await source.arrivals({ ...deps.sync.contextFor(user), since, until });
          await deps.db.transaction().execute((trx) =>
            deps.write(
              trx,
              user,
              arrived.map((batch) => ({ type: batch.type, records: batch.records })),
            ),
          );
          users++;
          records += arrived.reduce((total, batch) => total + batch.records.length, 0);
        } catch (error) {
          // One user's failure must not starve the others.
          deps.log.warn({ userId: user.id, provider: provider.id, err: error }, 'arrivals failed for user');
        }
      }
      if (page.length < USER_PAGE) break;
      afterId = page[page.length - 1]!.id;
    }
  }
  if (records > 0) deps.log.info({ users, records }, 'provider arrivals pushed');
  return { users, records };
}

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [ARRIVALS_QUEUE]: NoPayload;
  }
}

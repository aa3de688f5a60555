// The engine's own event: `healthcheck`, sent on demand (`POST /v2/webhook/test`) and on a schedule
// to every destination that can receive it (a URL set, not disabled), as the published contract
// has it: "sent periodically to verify your webhook endpoint is functional". Its figures are this
// destination's attempts in the last hour and the change against the hour before, both integers.
import type { Db } from '../../store/db.ts';
import { attemptsPerHour } from './delivery-counts.ts';
import { buildHealthcheckEvent, type HealthcheckEvent } from './events.ts';
import type { NoPayload } from '../../jobs/queues.ts';

export const HEALTHCHECK_QUEUE = 'webhooks.healthcheck';

/** Percentage change from `previous` to `last`, rounded to a whole number (0 when there is no baseline). */
export function trendPercentage(last: number, previous: number): number {
  return previous === 0 ? 0 : Math.round(((last - previous) / previous) * 100);
}

export async function healthcheckFor(db: Db, developerId: string, now: Date): Promise<HealthcheckEvent> {
  const counts = await attemptsPerHour(db, developerId, now);
  return buildHealthcheckEvent({
    createdAt: now,
    trendPercentage: trendPercentage(counts.last, counts.previous),
    sentWebhooksLastHour: counts.last,
  });
}

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [HEALTHCHECK_QUEUE]: NoPayload;
  }
}

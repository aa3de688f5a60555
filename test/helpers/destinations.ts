import assert from 'node:assert/strict';
import type { TestDeveloper, TestService } from './app.ts';
import type { DeliveryView } from './webhook-api.ts';
import { until } from './until.ts';
import type { WebhookEnvelope } from '../../src/features/delivery/events.ts';

/** Thin helpers over `/v2/destinations` for integration tests; every wait is bounded. */

export type DestinationView = {
  id: string;
  kind: string;
  name: string | null;
  settings: Record<string, unknown>;
  status: string;
  enabled: boolean;
  held_events: number;
  consecutive_failures: number;
  replayed?: number;
};

export async function api(
  service: TestService,
  developer: TestDeveloper,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: object,
) {
  const response = await service.app.inject({
    method,
    url,
    headers: developer.headers,
    ...(payload === undefined ? {} : { payload }),
  });
  return {
    status: response.statusCode,
    body: (response.body ? response.json() : null) as Record<string, unknown>,
    raw: response.body,
  };
}

export async function createDestination(
  service: TestService,
  developer: TestDeveloper,
  body: { kind: string; name?: string; settings: Record<string, unknown> },
): Promise<DestinationView> {
  const response = await api(service, developer, 'POST', '/v2/destinations', body);
  assert.equal(response.status, 201, `POST /v2/destinations: ${response.raw}`);
  return response.body as unknown as DestinationView;
}

export async function destinationDeliveries(
  service: TestService,
  developer: TestDeveloper,
  id: string,
  query = '',
): Promise<DeliveryView[]> {
  const all: DeliveryView[] = [];
  let cursor: string | null = null;
  do {
    const sep: string = query || cursor ? '?' : '';
    const parts = [query.replace(/^\?/, ''), cursor ? `cursor=${cursor}` : '', 'limit=200'].filter(Boolean);
    const response = await api(
      service,
      developer,
      'GET',
      `/v2/destinations/${id}/deliveries${sep || '?'}${parts.join('&')}`,
    );
    assert.equal(response.status, 200, response.raw);
    all.push(...(response.body.deliveries as DeliveryView[]));
    cursor = response.body.next_cursor as string | null;
  } while (cursor);
  return all;
}

/** Waits until the destination's log holds `count` events, every one settled as `status`. */
export async function waitForStatus(
  service: TestService,
  developer: TestDeveloper,
  id: string,
  count: number,
  status: string,
): Promise<DeliveryView[]> {
  return until(
    `${count} events ${status} at destination ${id}`,
    () => destinationDeliveries(service, developer, id),
    {
      done: (list) => list.length === count && list.every((d) => d.status === status),
      show: (list) => JSON.stringify(list.map((d) => [d.type, d.status, d.last_error]).slice(0, 10)),
    },
  );
}

/**
 * Replays the copy `eventId` at destination `id` (202) and awaits it delivered a second time;
 * if it never is, the failure shows the destination's log.
 */
export async function replayDelivered(
  service: TestService,
  developer: TestDeveloper,
  id: string,
  eventId: string,
): Promise<void> {
  const replay = await api(service, developer, 'POST', `/v2/destinations/${id}/deliveries/${eventId}/replay`);
  assert.equal(replay.status, 202, replay.raw);
  await until(
    `the replay of ${eventId} delivered at destination ${id}`,
    () => destinationDeliveries(service, developer, id),
    {
      done: (list) =>
        list.some((d) => d.event_id === eventId && d.status === 'delivered' && d.attempt_count === 2),
      show: (list) =>
        JSON.stringify(
          list.map((d) => [
            d.event_id,
            d.status,
            d.attempts.map((a) => [a.attempted_at, a.outcome, a.error]),
          ]),
        ),
    },
  );
}

/**
 * A data event as the data feature builds it (features/data/events.ts): one sleep record per
 * night, identified by its summary_id, for `userId`.
 */
export function sleepEvent(userId: string, nights: readonly string[], version = 1): WebhookEnvelope {
  return {
    type: 'sleep',
    userId,
    suppressible: true,
    payload: {
      type: 'sleep',
      user: { user_id: userId, provider: 'OURA', reference_id: 'ref-1', active: true },
      data: nights.map((night) => ({
        metadata: {
          summary_id: `sleep-${night}`,
          start_time: `${night}T23:00:00.000000+00:00`,
          end_time: `${night}T23:59:00.000000+00:00`,
        },
        sleep_durations_data: { asleep: { duration_asleep_state_seconds: 3000 + version } },
      })),
      version: '2022-03-16.0',
    },
  };
}

export function deauthEvent(userId: string): WebhookEnvelope {
  return {
    type: 'deauth',
    userId,
    payload: {
      type: 'deauth',
      status: 'success',
      message: 'User has deauthenticated',
      user: { user_id: userId, provider: 'OURA', reference_id: 'ref-1', active: false },
    },
  };
}

export async function emit(service: TestService, developer: TestDeveloper, envelopes: WebhookEnvelope[]) {
  return service.ctx.db
    .transaction()
    .execute((trx) => service.ctx.webhooks.emitMany(trx, developer.devId, envelopes));
}

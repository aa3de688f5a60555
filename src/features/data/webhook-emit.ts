// Handing data events to the webhook engine. A data event whose body exceeds the payload limit, or
// whose request range is long, goes out as large_request_processing, large_request_sending
// {expected_payloads} and the chunks, all carrying one reference (minted when there is none).
import { newUuid } from '../../core/ids.ts';
import type { Db } from '../../store/db.ts';
import type { WebhookEnvelope } from '../delivery/events.ts';
import type { WebhooksService } from '../delivery/service.ts';
import type { WebhookSettings } from '../delivery/settings.ts';
import { planDataDelivery, serializedSize } from './chunking.ts';
import {
  buildLargeRequestProcessingEvent,
  buildLargeRequestSendingEvent,
  type DataEnvelopeOptions,
  type DataEvent,
  dataEnvelope,
  type DataWebhookEvent,
  isDataEventType,
} from './events.ts';

export type DataEmitOptions = DataEnvelopeOptions & {
  /** The requested range of a data request: a range over 28 days is sent as announced chunks. */
  range?: { start: Date; end: Date };
};

export type DataEmitItem = { event: DataWebhookEvent; options?: DataEmitOptions };

/** What data needs of the webhook engine: the bulk emit and the payload limits. */
export type DataWebhooks = Pick<WebhooksService, 'emitMany' | 'settings'>;

/** One event in, one or more envelopes out: only data events are ever split. */
export function expandForDelivery(
  item: DataEmitItem,
  settings: Pick<WebhookSettings, 'maxPayloadBytes' | 'chunkMaxObjects'>,
): WebhookEnvelope[] {
  const { event, options = {} } = item;
  const envelope = dataEnvelope(event, options);
  if (!('data' in event) || !isDataEventType(event.type)) return [envelope];
  const reference = envelope.reference ?? null;
  const plan = planDataDelivery(event.data, options.range ?? { start: new Date(0), end: new Date(0) }, {
    maxBytes: settings.maxPayloadBytes,
    maxObjects: settings.chunkMaxObjects,
    reservedBytes: serializedSize({ ...event, data: [], reference: reference ?? newUuid() }),
  });
  if (!plan.large) return [envelope];
  const shared = reference ?? newUuid();
  const chunks = plan.chunks.map((data) => ({ ...event, data, reference: shared }) as DataEvent);
  const same = { userId: envelope.userId ?? event.user.user_id, reference: shared };
  return [
    buildLargeRequestProcessingEvent({ user: event.user, reference: shared }),
    buildLargeRequestSendingEvent({ user: event.user, reference: shared, expectedPayloads: chunks.length }),
    ...chunks,
  ].map((expanded) => dataEnvelope(expanded, same));
}

/** Writes data events to the outbox in `trx`, split where needed; returns every stored id in order. */
export async function emitDataEvents(
  webhooks: DataWebhooks,
  trx: Db,
  developerId: string,
  items: readonly DataEmitItem[],
): Promise<string[]> {
  const envelopes = items.flatMap((item) => expandForDelivery(item, webhooks.settings));
  return webhooks.emitMany(trx, developerId, envelopes);
}

/** `emitDataEvents` for one event; returns the first stored id (the announcement, when it was split). */
export async function emitDataEvent(
  webhooks: DataWebhooks,
  trx: Db,
  developerId: string,
  event: DataWebhookEvent,
  options?: DataEmitOptions,
): Promise<string> {
  const ids = await emitDataEvents(webhooks, trx, developerId, [options ? { event, options } : { event }]);
  return ids[0]!;
}

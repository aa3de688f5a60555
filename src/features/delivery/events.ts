// What the engine delivers: an opaque envelope. Each feature builds its own events (property names
// follow the reference wire contract) and wraps them here; the engine stores the payload's bytes,
// signs and sends them, and never looks inside. Its one event of its own is the healthcheck.
import { wireDateTime } from '../../model/time.ts';

export type WebhookEnvelope = {
  /**
   * The event id (the `webhook-id` header, and what replay takes), for events whose payload
   * carries it; minted through core/ids.ts as a `webhookEvent` id. Otherwise the outbox mints one.
   */
  id?: string;
  /** The event's name, as the delivery log reports it (and filters by `type`). */
  type: string;
  /** Sent as the JSON body, exactly as given. */
  payload: object;
  /** Who the event is about, if anyone: for the log's `user_id` filter and the hooks. */
  userId?: string | null;
  /** The request that caused the event, sent as `service-reference`. */
  reference?: string | null;
  /**
   * Put to the suppression hook when written and again before each send, and dropped by
   * `dropPendingForUser`: for payloads that must not reach the developer once their user is gone.
   */
  suppressible?: boolean;
  /** Sent to the developer's webhook only, not copied to its destinations of other kinds (the healthcheck). */
  webhookOnly?: boolean;
};

export interface HealthcheckEvent {
  type: 'healthcheck';
  status: 'success';
  creation_timestamp: string;
  trend_percentage: number;
  sent_webhooks_last_hour: number;
}

export function buildHealthcheckEvent(input: {
  createdAt: Date;
  trendPercentage: number;
  sentWebhooksLastHour: number;
}): HealthcheckEvent {
  return {
    type: 'healthcheck',
    status: 'success',
    creation_timestamp: wireDateTime(input.createdAt),
    trend_percentage: input.trendPercentage,
    sent_webhooks_last_hour: input.sentWebhooksLastHour,
  };
}

export function healthcheckEnvelope(event: HealthcheckEvent): WebhookEnvelope {
  return { type: event.type, payload: event, webhookOnly: true };
}

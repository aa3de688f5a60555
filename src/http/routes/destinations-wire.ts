// What the destination routes answer with: a destination (any kind), its health, the primary
// webhook in the vendor contract's shape, and the deliveries list's filters from its query. Part
// of destinations.ts (the routes), split off as a pure move.
import type { DestinationView } from '../../features/delivery/destination-management.ts';
import type { WebhookDestination } from '../../features/delivery/webhook-alias.ts';
import type { WebhookSettings } from '../../features/delivery/settings.ts';
import { wireDateTime } from '../../model/time.ts';

const wire = (at: Date | null) => (at ? wireDateTime(at) : null);

function healthBody(view: DestinationView) {
  return {
    status: view.status,
    enabled: view.status !== 'disabled',
    recent_failures: view.recentFailures,
    consecutive_failures: view.consecutiveFailures,
    failing_since: wire(view.failingSince),
    disabled_at: wire(view.disabledAt),
    last_success_at: wire(view.lastSuccessAt),
    last_failure_at: wire(view.lastFailureAt),
    held_events: view.heldEvents,
  };
}

export function destinationBody(view: DestinationView) {
  return {
    id: view.id,
    kind: view.kind,
    name: view.name,
    primary: view.primary,
    event_types: view.eventTypes,
    settings: view.settings,
    ...healthBody(view),
    created_at: wireDateTime(view.createdAt),
    ...(view.secret === undefined ? {} : { secret: view.secret }),
  };
}

/** The primary webhook in the vendor contract's shape (`/v2/webhook`). */
export function webhookBody(view: WebhookDestination, settings: WebhookSettings) {
  return {
    url: view.url,
    ...healthBody(view),
    previous_secret_expires_at: wire(view.previousSecretExpiresAt),
    failing_after_seconds: Math.round(settings.failingAfterMs / 1000),
    disable_after_seconds: Math.round(settings.disableAfterMs / 1000),
  };
}

export type DeliveriesQueryType = Partial<
  Record<'status' | 'type' | 'user_id' | 'since' | 'cursor', string>
> & {
  limit?: number;
};

export function deliveryFilters(query: DeliveriesQueryType) {
  const { status, type, user_id, since, cursor, limit } = query;
  return {
    ...(status === undefined ? {} : { status }),
    ...(type === undefined ? {} : { type }),
    ...(user_id === undefined ? {} : { userId: user_id }),
    ...(since === undefined ? {} : { since }),
    ...(cursor === undefined ? {} : { cursor }),
    ...(limit === undefined ? {} : { limit }),
  };
}

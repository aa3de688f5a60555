// The delivery engine's view of a batch's destinations: read once when the batch starts (and
// again once stale, deliver.ts), each with its signing keys made on first use, and the connection
// each destination's events go through (a webhook's made per read, another kind's kept between
// batches by kind-connections.ts). Separate from sending: what a destination is and how it is
// reached, not what happens to an attempt.
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import type { Db } from '../../store/db.ts';
import { type DestinationRow, findRoutes, retiredSecretsOf, WEBHOOK_KIND } from './destination-repo.ts';
import type { KindConnections } from './kind-connections.ts';
import type { KindConnection } from './kinds/kind.ts';
import { webhookConnection, type WebhookSendDeps } from './kinds/webhook.ts';
import type { DeliverableEvent } from './event-rows.ts';
import { type SigningKey, signingKey, signingSecretsAt } from './signing.ts';

/**
 * A batch reads its destinations (URL, status, secrets) when it starts and again once this old,
 * so a change made while a long batch is being sent applies to the rest of it.
 */
export const DESTINATIONS_FRESH_MS = 1_000;

/**
 * The batch's destinations as last read, each with its signing keys made once (on first use),
 * and each webhook's connection (made once per read, not per attempt).
 */
export type Snapshot = {
  destinations: Map<string, DestinationRow>;
  retired: Map<string, { secret: string; signsUntil: Date }[]>;
  keys: Map<string, SigningKey[]>;
  webhooks: Map<string, KindConnection>;
  readAt: number;
};

export function createDestinationSnapshots(deps: {
  db: Db;
  clock: Clock;
  secretBox: SecretBox;
  connections: KindConnections;
  webhookDeps: WebhookSendDeps;
}) {
  const { db, clock, connections, webhookDeps } = deps;

  async function readDestinations(events: readonly DeliverableEvent[]): Promise<Snapshot> {
    // Both at once (the retired secrets are found by developer, so they need not wait for the
    // destinations): one round trip less before a batch's first send on PostgreSQL. Any event may
    // be for a webhook (the primary one, or a secondary one named by its destination id).
    const webhookDevelopers = [...new Set(events.map((event) => event.developer_id))];
    const [destinations, retired] = await Promise.all([
      findRoutes(db, events),
      retiredSecretsOf(db, webhookDevelopers, clock.now()),
    ]);
    return { destinations, retired, keys: new Map(), webhooks: new Map(), readAt: Date.now() };
  }

  function keysFor(snapshot: Snapshot, destination: DestinationRow): SigningKey[] {
    let keys = snapshot.keys.get(destination.id);
    if (!keys) {
      const secrets = signingSecretsAt(
        {
          current: deps.secretBox.open(destination.secret ?? ''),
          retired: (snapshot.retired.get(destination.id) ?? []).map((entry) => ({
            ...entry,
            secret: deps.secretBox.open(entry.secret),
          })),
        },
        clock.now(),
      );
      keys = secrets.map(signingKey);
      snapshot.keys.set(destination.id, keys);
    }
    return keys;
  }

  /**
   * The destination's connection: a webhook's made with the batch's signing keys when its
   * destinations are read (kinds/webhook.ts), any other kind's client kept between batches
   * (kind-connections.ts).
   */
  function connectionFor(destination: DestinationRow, snapshot: Snapshot): KindConnection {
    if (destination.kind !== WEBHOOK_KIND) return connections.get(destination);
    let connection = snapshot.webhooks.get(destination.id);
    if (!connection) {
      connection = webhookConnection(webhookDeps, {
        url: destination.url ?? '',
        environment: destination.environment,
        keys: keysFor(snapshot, destination),
      });
      snapshot.webhooks.set(destination.id, connection);
    }
    return connection;
  }

  return { readDestinations, connectionFor };
}

// The open clients of destinations of other kinds than the webhook (a database pool, an S3
// client, a NATS connection), one per destination, kept between batches by a delivery engine.
// A destination whose settings changed gets a new client (the old one is closed), one unused
// for IDLE_MS is closed (a deleted destination's, or one whose events go to another worker), one
// whose send ran past the engine's deadline is closed at once (`discard`: its sockets go with it);
// `closeAll` runs when the process stops.
import type { Logger } from 'pino';
import type { SecretBox } from '../../core/secret-box.ts';
import { kindOf, type KindConnection } from './destination-kinds.ts';
import { type ResolveHost, systemResolver, type WebhookEnvironment } from './destination-policy.ts';
import type { OwnDatabase } from './own-database.ts';

export type KindConnections = {
  get(destination: {
    id: string;
    kind: string;
    settings: string | null;
    environment: WebhookEnvironment;
  }): KindConnection;
  /** Closes this destination's client if it is still `connection` (the next send opens another). */
  discard(destinationId: string, connection: KindConnection): void;
  closeAll(): Promise<void>;
};

/** A client unused this long is closed; the next event for its destination opens another. */
const IDLE_MS = 5 * 60_000;

export function createKindConnections(deps: {
  secretBox: SecretBox;
  log: Logger;
  connectTimeoutMs: number;
  deadlineMs: number;
  ownDatabases: readonly OwnDatabase[];
  resolve?: ResolveHost;
}): KindConnections {
  const open = new Map<string, { sealed: string; connection: KindConnection; usedAt: number }>();
  let sweptAt = Date.now();

  function closeIdle(now: number) {
    if (now - sweptAt < IDLE_MS / 5) return;
    sweptAt = now;
    for (const [id, entry] of open) {
      if (now - entry.usedAt < IDLE_MS) continue;
      open.delete(id);
      void entry.connection.close();
    }
  }

  return {
    get(destination) {
      const now = Date.now();
      closeIdle(now);
      const sealed = destination.settings ?? '';
      const current = open.get(destination.id);
      if (current && current.sealed === sealed) {
        current.usedAt = now;
        return current.connection;
      }
      if (current) void current.connection.close();
      const settings: unknown = JSON.parse(deps.secretBox.open(sealed));
      const connection = kindOf(destination.kind).connect(settings as Record<string, unknown>, {
        log: deps.log,
        environment: destination.environment,
        resolve: deps.resolve ?? systemResolver,
        ownDatabases: deps.ownDatabases,
        connectTimeoutMs: deps.connectTimeoutMs,
        deadlineMs: deps.deadlineMs,
      });
      open.set(destination.id, { sealed, connection, usedAt: now });
      return connection;
    },
    discard(destinationId, connection) {
      const current = open.get(destinationId);
      if (current?.connection === connection) open.delete(destinationId);
      void connection.close().catch(() => undefined);
    },
    async closeAll() {
      const all = [...open.values()];
      open.clear();
      await Promise.all(all.map(({ connection }) => connection.close()));
    },
  };
}

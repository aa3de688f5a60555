// The open clients of destinations of other kinds than the webhook (a database pool, an S3
// client, a NATS connection), one per destination, kept between batches by a delivery engine.
// A destination whose settings changed gets a new client (the old one is closed); `closeAll`
// runs when the process stops.
import type { Logger } from 'pino';
import type { SecretBox } from '../../core/secret-box.ts';
import { kindOf, type KindConnection } from './destination-kinds.ts';

export type KindConnections = {
  get(destination: { id: string; kind: string; settings: string | null }): KindConnection;
  closeAll(): Promise<void>;
};

export function createKindConnections(deps: { secretBox: SecretBox; log: Logger }): KindConnections {
  const open = new Map<string, { sealed: string; connection: KindConnection }>();
  return {
    get(destination) {
      const sealed = destination.settings ?? '';
      const current = open.get(destination.id);
      if (current && current.sealed === sealed) return current.connection;
      if (current) void current.connection.close();
      const settings: unknown = JSON.parse(deps.secretBox.open(sealed));
      const connection = kindOf(destination.kind).connect(settings as Record<string, unknown>, deps.log);
      open.set(destination.id, { sealed, connection });
      return connection;
    },
    async closeAll() {
      const all = [...open.values()];
      open.clear();
      await Promise.all(all.map(({ connection }) => connection.close()));
    },
  };
}

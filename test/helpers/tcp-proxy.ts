import { createServer, type Server, type Socket, connect } from 'node:net';

/**
 * A TCP proxy between a service and its database, for fault tests: `cut()` drops every open
 * connection and refuses new ones (what a failed proxy or a database host going away looks
 * like to the client), `restore()` accepts again on the same port.
 */
export type TcpProxy = {
  port: number;
  /** Connections currently relayed. */
  open(): number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
};

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const relay = (client: Socket) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  };

  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    const next = createServer(relay);
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    const address = next.address();
    if (!address || typeof address === 'string') throw new Error('proxy has no port');
    port = address.port;
    server = next;
  };
  const stopListening = async () => {
    const current = server;
    server = undefined;
    if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
  };
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };

  await listen();
  return {
    get port() {
      return port;
    },
    open: () => sockets.size / 2,
    async cut() {
      const closing = stopListening();
      dropAll();
      await closing;
    },
    async restore() {
      if (!server) await listen();
    },
    async close() {
      const closing = stopListening();
      dropAll();
      await closing;
    },
  };
}

import { createServer, type Server, type Socket } from 'node:net';
import { until } from './until.ts';

/**
 * Destinations that never answer, on loopback, for the bulkhead tests: a black hole accepts the
 * connection and reads whatever comes, and never writes a byte; a trickle answers an HTTP request
 * with its status line and then one header byte at a time, forever (the first byte arrives, the
 * answer never ends). Both count the connections they accepted, so a test waits on what really
 * reached them rather than on time.
 */
export type SilentListener = {
  readonly url: string;
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections open now. */
  readonly open: number;
  waitForConnections(count: number): Promise<void>;
  close(): Promise<void>;
};

async function listen(onConnection: (socket: Socket) => void): Promise<SilentListener> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  const port = address.port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get accepted() {
      return accepted;
    },
    get open() {
      return sockets.size;
    },
    async waitForConnections(count) {
      await until(`${count} connections accepted by the silent listener on ${port}`, () => accepted >= count);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Accepts, reads, never answers. */
export function startBlackHole(): Promise<SilentListener> {
  return listen((socket) => socket.resume());
}

/** Answers `HTTP/1.1 200 OK` and then a header byte every `everyMs`, never finishing the head. */
export function startTrickle(everyMs = 100): Promise<SilentListener> {
  return listen((socket) => {
    let started = false;
    socket.on('data', () => {
      if (started) return;
      started = true;
      socket.write('HTTP/1.1 200 OK\r\nX-Slow: ');
      const timer = setInterval(() => {
        if (socket.destroyed) clearInterval(timer);
        else socket.write('a');
      }, everyMs);
      socket.on('close', () => clearInterval(timer));
    });
  });
}

// A raw HTTP/1.1 connection for tests that must speak below any client library (stalled bodies,
// held sockets, bytes a client would refuse to send): it writes what it is told, collects what
// comes back and notes when the server closes it.
import { connect, type Socket } from 'node:net';

export type RawConnection = {
  socket: Socket;
  /** Writes more bytes; resolves once they are handed to the socket. */
  send(bytes: string): Promise<void>;
  closed(): boolean;
  /** Everything received so far, as UTF-8. */
  answer(): string;
  destroy(): void;
};

/** Opens a connection to 127.0.0.1:`port` and writes `first` (if given) at once. */
export function rawConnection(port: number, first?: string): RawConnection {
  const received: Buffer[] = [];
  let closed = false;
  // Written at once: a socket keeps writes in order until it connects.
  const socket = connect(port, '127.0.0.1');
  if (first !== undefined) socket.write(first);
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.on('error', () => {});
  socket.on('close', () => (closed = true));
  return {
    socket,
    send: (bytes) => new Promise<void>((resolve) => socket.write(bytes, () => resolve())),
    closed: () => closed,
    answer: () => Buffer.concat(received).toString('utf8'),
    destroy: () => socket.destroy(),
  };
}

// A cap on the connections the server holds at once. Node accepts connections without limit, and
// every held one costs a file descriptor and buffers: enough clients that open connections and
// keep them (idle, or slow, within every deadline) could run the process out of descriptors,
// after which it can open no file, spool no upload and reach no database. Past the cap Node
// closes each new connection as soon as it is accepted; the clients already connected are served
// as before, and a new one is accepted once one of them goes.
import type { App } from './app-type.ts';

/** A refused connection is logged at most this often: a flood must not become a flood of lines. */
const DROP_LOG_INTERVAL_MS = 60_000;

export function registerConnectionCap(app: App, maxConnections: number) {
  app.server.maxConnections = maxConnections;
  let lastLogged = -Infinity;
  let droppedSinceLog = 0;
  app.server.on('drop', () => {
    droppedSinceLog++;
    const now = Date.now();
    if (now - lastLogged < DROP_LOG_INTERVAL_MS) return;
    app.log.warn(
      { dropped: droppedSinceLog, maxConnections },
      `connections refused: the server holds HTTP_MAX_CONNECTIONS (${maxConnections}) already`,
    );
    lastLogged = now;
    droppedSinceLog = 0;
  });
}

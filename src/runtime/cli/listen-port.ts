import { createServer } from 'node:net';

/**
 * `serve` could not take its address: said in one line (which address, what to do), exit status 1,
 * never a stack.
 */
export class PortUnavailable extends Error {
  override name = 'PortUnavailable';
}

const show = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/** The one-line reason for a listen error, or null when it is not about the address. */
export function portProblem(error: unknown, host: string, port: number): PortUnavailable | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE')
    return new PortUnavailable(
      `${show(host, port)} is already in use (another tributary serve, or another program); ` +
        'stop it, or set PORT (and HOST) to a free address',
    );
  if (code === 'EACCES')
    return new PortUnavailable(
      `not permitted to listen on ${show(host, port)} (a port below 1024 needs privileges); set PORT to 1024 or above`,
    );
  if (code === 'EADDRNOTAVAIL')
    return new PortUnavailable(
      `HOST ${host} is not an address of this machine; set HOST to one of its addresses`,
    );
  return null;
}

/**
 * Binds and releases the address at once, so a taken port is reported before the long part of
 * start-up (opening the store, migrations). The real listen still reports its own failure the same
 * way: another program may take the port in between.
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error) => reject(portProblem(error, host, port) ?? error));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

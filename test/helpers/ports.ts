import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A TCP port for a server a test starts later (a child service, nats-server, a PostgreSQL
 * cluster, Chromium, an app that must know its PUBLIC_URL before it listens), safe while test
 * files run in parallel.
 *
 * Asking the kernel for a free port (listen on 0, close, hand the number on) races: between the
 * close and the child's bind, any outgoing connection of any process may be given that port from
 * the same ephemeral range, or another test file may be handed it too. So ports come from below
 * the ephemeral range (nothing is given one there unless it asks for that number), and each is
 * claimed machine-wide by a file created exclusively in a shared directory before it is handed
 * out; a claim is released when its process exits (a claim whose process is gone is taken over).
 */
const CLAIMS = join(tmpdir(), 'tributary-test-ports');
const FIRST = 20_000;
const LAST = 32_000;
const mine: string[] = [];

function ephemeralLow(): number {
  try {
    return (
      Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768
    );
  } catch {
    return 32_768;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Claims `port` for this process, or returns false when a live process holds it. */
function claim(port: number): boolean {
  const file = join(CLAIMS, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
  } catch {
    const owner = Number(readFileSync(file, 'utf8').trim());
    if (!owner || alive(owner)) return false;
    try {
      unlinkSync(file);
      writeFileSync(file, String(process.pid), { flag: 'wx' });
    } catch {
      return false;
    }
  }
  mine.push(file);
  return true;
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

process.once('exit', () => {
  for (const file of mine) {
    try {
      unlinkSync(file);
    } catch {
      // already gone
    }
  }
});

export async function freePort(): Promise<number> {
  mkdirSync(CLAIMS, { recursive: true });
  const last = Math.min(LAST, ephemeralLow() - 1);
  const span = last - FIRST + 1;
  const start = Math.floor(Math.random() * span);
  for (let offset = 0; offset < span; offset++) {
    const port = FIRST + ((start + offset) % span);
    if (!claim(port)) continue;
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${FIRST} and ${last}`);
}

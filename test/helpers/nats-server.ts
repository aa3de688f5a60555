import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './until.ts';
import { freePort } from './ports.ts';

/**
 * A NATS server with JetStream of the test's own (Debian's `nats-server`, installed by
 * scripts/ensure-test-tools.sh), on a free loopback port with its store in a temporary
 * directory. `stop()` kills it (SIGKILL: connections drop, nothing is flushed beyond what
 * JetStream already synced) and `start()` runs it again on the same port and store.
 */
export type NatsServer = {
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
};

/** Why the NATS tests cannot run here, or false. */
export function natsSkipReason(): string | false {
  const probe = spawnSync('nats-server', ['--version'], { encoding: 'utf8' });
  return probe.status === 0
    ? false
    : 'needs nats-server (apt-get install -y nats-server; scripts/ensure-test-tools.sh installs it)';
}

export async function startNatsServer(): Promise<NatsServer> {
  const store = mkdtempSync(join(tmpdir(), 'tributary-nats-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  let log = '';
  const start = async () => {
    if (child) return;
    const started = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', store], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child = started;
    await until('nats-server ready', () => {
      if (started.exitCode !== null) throw new Error(`nats-server exited: ${log.slice(-2000)}`);
      return /Server is ready/.test(log);
    });
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGKILL');
    await exited;
    log = '';
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    start,
    stop,
    async close() {
      await stop();
      rmSync(store, { recursive: true, force: true });
    },
  };
}

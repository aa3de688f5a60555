import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { until } from '../helpers/until.ts';
import { freePort } from '../helpers/ports.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { QUICK_SUPERVISION_ENV } from '../helpers/job-queue-settings.ts';

/**
 * Durability end to end: the real service as a child process, 1,000 events pending or in flight,
 * SIGKILL, restart, and the receiver must end up with all 1,000 distinct webhook-ids. Jobs the
 * killed process had claimed are reclaimed by pg-boss once their heartbeat lapses (10 s) on its
 * next check of their queue (every second here: QUICK_SUPERVISION_ENV); the bound on the final
 * wait stays generous for a loaded machine.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const nodeBinary = join(root, 'node_modules/.bin/node');
const cli = join(root, 'bin/tributary.js');
const EVENTS = 1_000;

let receiver: WebhookReceiver;
let child: ChildProcess | undefined;
let childLog = '';
const dataDir = mkdtempSync(join(tmpdir(), 'tributary-crash-'));

let port = 0;
/**
 * On PostgreSQL, a database of the test's own (commits there need not wait for the disk), copied
 * from the run's migrated template: the service finds its migrations done.
 */
let database: TestDatabase | undefined;
const env = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  DATA_DIR: dataDir,
  PORT: String(port),
  LOG_LEVEL: 'warn',
  ...QUICK_SUPERVISION_ENV,
  ...(database ? { DATABASE_URL: database.url, ENCRYPTION_KEY: encryptionKey } : {}),
});
const encryptionKey = randomBytes(32).toString('hex');

async function runCli(args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(nodeBinary, [cli, ...args], { env: env(), timeout: 60_000 });
  return stdout;
}

async function startServer(): Promise<void> {
  child = spawn(nodeBinary, [cli, 'serve', '--role', 'all'], {
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    childLog += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    childLog += chunk.toString();
  });
  const running = child;
  await until(
    'the service to be ready',
    async () => {
      if (running.exitCode !== null)
        throw new Error(
          `the service exited during start-up (${running.exitCode}):\n${childLog.slice(-3000)}`,
        );
      try {
        return (await fetch(`http://127.0.0.1:${port}/ready`)).status === 200;
      } catch {
        return false; // Not listening yet.
      }
    },
    { timeoutMs: 90_000, intervalMs: 200, show: () => `not ready; its log:\n${childLog.slice(-3000)}` },
  );
}

async function killServer(signal: NodeJS.Signals): Promise<void> {
  const running = child;
  if (!running || running.exitCode !== null || running.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
  running.kill(signal);
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
  if (running.exitCode === null && running.signalCode === null) {
    running.kill('SIGKILL');
    await exited;
  }
}

before(async () => {
  if (!existsSync(nodeBinary)) throw new Error(`${nodeBinary} is missing: run npm install first`);
  receiver = await startWebhookReceiver();
  port = await freePort();
  if (process.env.DATABASE_URL) database = await createTestDatabase();
});

after(async () => {
  await killServer('SIGTERM');
  await receiver?.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

test(
  'SIGKILL with 1,000 events pending: after a restart the receiver has all 1,000 webhook-ids',
  {
    timeout: 300_000,
  },
  async () => {
    // Embedded PGlite is single-process, so the CLI runs before the server starts.
    const created = JSON.parse(
      await runCli(['developers', 'create', '--name', 'Crash test', '--environment', 'sandbox', '--json']),
    ) as {
      dev_id: string;
      api_key: string;
    };
    await runCli(['webhook', 'set', created.dev_id, '--url', receiver.url]);
    // Slow answers keep deliveries in flight and the backlog pending when the process dies.
    receiver.setDefault({ status: 200, delayMs: 5000 });
    await startServer();

    const headers = { 'dev-id': created.dev_id, 'x-api-key': created.api_key };
    const eventIds: string[] = [];
    const enqueue = async () => {
      while (eventIds.length < EVENTS) {
        eventIds.push('');
        const index = eventIds.length - 1;
        const response = await fetch(`http://127.0.0.1:${port}/v2/webhook/test`, { method: 'POST', headers });
        const text = await response.text();
        assert.equal(response.status, 202, `POST /v2/webhook/test answered ${response.status}: ${text}`);
        eventIds[index] = (JSON.parse(text) as { event_id: string }).event_id;
      }
    };
    await Promise.all(Array.from({ length: 10 }, enqueue));
    assert.equal(new Set(eventIds).size, EVENTS);

    // Kill with a good number of deliveries on the wire (claimed by the worker, not yet answered).
    await receiver.waitFor((list) => list.length >= 100, '100 deliveries in flight before the kill', 60_000);
    const beforeKill = receiver.distinctIds().size;
    const answeredBeforeKill = receiver.received.filter((entry) => entry.answeredAt !== null).length;
    const started = Date.now();
    assert.ok(
      beforeKill < EVENTS,
      `all ${EVENTS} events arrived before the kill: the receiver must be slower for this test to mean anything`,
    );
    await killServer('SIGKILL');
    assert.equal(child?.signalCode, 'SIGKILL');

    receiver.setDefault(200);
    await startServer();
    await receiver.waitFor(
      () => receiver.distinctIds().size >= EVENTS,
      `all ${EVENTS} distinct webhook-ids after the restart (had ${beforeKill} before the kill)`,
      180_000,
    );
    const received = receiver.distinctIds();
    assert.deepEqual(
      eventIds.filter((id) => !received.has(id)),
      [],
      'every accepted event was delivered',
    );
    // Nothing else arrived under a webhook-id of its own, but for the scheduled healthcheck, which
    // may fall due while the test runs (its own event, not one of these).
    const accepted = new Set(eventIds);
    const others = receiver.received.filter((entry) => !accepted.has(String(entry.headers['webhook-id'])));
    assert.deepEqual(
      others
        .map((entry) => (JSON.parse(entry.body) as { type?: string }).type)
        .filter((type) => type !== 'healthcheck'),
      [],
      'no delivery besides the accepted events and a scheduled healthcheck',
    );
    assert.equal(
      received.size - new Set(others.map((entry) => String(entry.headers['webhook-id']))).size,
      EVENTS,
    );
    console.log(
      `# at SIGKILL ${beforeKill} had arrived, ${answeredBeforeKill} answered; all ${EVENTS} delivered ${Math.round((Date.now() - started) / 1000)} s after it`,
    );
  },
);

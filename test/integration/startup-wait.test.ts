import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  childEnvironment,
  type ChildEnvironment,
  runCli,
  spawnServe,
  startService,
} from '../helpers/child-service.ts';
import { sql } from 'kysely';
import { createLogger } from '../../src/core/log.ts';
import { loadRuntimeConfig } from '../../src/runtime/settings.ts';
import { startRuntime } from '../../src/runtime/runtime.ts';
import { openStore } from '../../src/store/db.ts';
import { postgresSkipReason } from '../helpers/scratch-database.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { until } from '../helpers/until.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

/**
 * Start-up that never falls over: a process started while its PostgreSQL is away listens at
 * once (/health 200, /ready 503 saying it waits for the database, every other route a 503
 * problem), waits with backoff, and serves once the database appears; a signal while it waits
 * ends it cleanly. Embedded storage creates a missing DATA_DIR (0700) before anything else.
 */

type Child = { process: ChildProcess; output(): string; exited: Promise<number | null> };

/** The service as a process, not awaited ready (it cannot be, yet). */
/** The API is handed its port (spawnServe); a worker binds none. */
async function spawnService(env: Record<string, string>, args: string[]): Promise<Child> {
  const child = await spawnServe(env, args);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, output: () => output, exited };
}

/** Fails the wait at once when a process that must keep waiting has exited. */
function alive(...children: Child[]) {
  for (const child of children)
    if (child.process.exitCode !== null)
      throw new Error(`the service exited (${child.process.exitCode}) while waiting:\n${child.output()}`);
}

async function stopChild(child: Child): Promise<number | null> {
  if (child.process.exitCode !== null) return child.process.exitCode;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), 30_000);
  try {
    return await child.exited;
  } finally {
    clearTimeout(timer);
  }
}

const get = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { headers }).then(
    async (response) => ({
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      body: (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined,
    }),
    () => undefined,
  );

const postgresSkip = await postgresSkipReason();

describe('start-up while PostgreSQL is away', { skip: postgresSkip }, () => {
  let proxy: TcpProxy;
  let environment: ChildEnvironment;
  let database: TestDatabase | undefined;
  const children: Child[] = [];

  before(async () => {
    const direct = new URL(process.env.DATABASE_URL!);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    // The proxy's port, closed: what a client sees of a database host that is not up yet.
    await proxy.cut();
    database = await createTestDatabase('empty');
    const viaProxy = new URL(database.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    environment = await childEnvironment({ DATABASE_URL: viaProxy.toString(), LOG_LEVEL: 'info' });
  });

  after(async () => {
    for (const child of children) await stopChild(child);
    await proxy.close();
    await environment.cleanup();
    await database?.drop();
  });

  test('waits, answers /health and reports not-ready, then serves when the database appears', async () => {
    const url = environment.env.PUBLIC_URL!;
    const api = await spawnService(environment.env, ['serve', '--role', 'api']);
    const worker = await spawnService(environment.env, ['serve', '--role', 'worker']);
    children.push(api, worker);

    const health = await until(
      '/health to answer while the database is away',
      () => (alive(api, worker), get(`${url}/health`)),
      {
        done: (answer) => answer?.status === 200,
        show: () => api.output(),
      },
    );
    assert.deepEqual(health?.body, { status: 'ok' });

    const ready = await get(`${url}/ready`);
    assert.equal(ready?.status, 503);
    assert.equal(ready?.body?.status, 'not_ready');
    assert.equal(ready?.body?.startup, 'waiting_for_database');
    assert.equal(ready?.body?.database, 'unreachable');

    // Any other route: a 503 problem that says why, never a 500 or a dropped socket.
    const refused = await get(`${url}/v2/subscriptions`, { 'dev-id': 'x', 'x-api-key': 'y' });
    assert.equal(refused?.status, 503);
    assert.match(refused?.type ?? '', /application\/problem\+json/);
    assert.match(String(refused?.body?.detail), /waiting for the database/);

    // Both keep waiting with backoff (several attempts logged) instead of exiting.
    await until(
      'both processes to have retried',
      () =>
        (alive(api, worker), [api, worker]).every(
          (child) => (child.output().match(/waiting for the database/g) ?? []).length >= 3,
        ),
      { show: () => `api:\n${api.output()}\nworker:\n${worker.output()}` },
    );
    assert.equal(api.process.exitCode, null, api.output());
    assert.equal(worker.process.exitCode, null, worker.output());

    await proxy.restore();
    const nowReady = await until('/ready once the database is there', () => get(`${url}/ready`), {
      done: (answer) => answer?.status === 200,
      show: (answer) => `${JSON.stringify(answer)}\n${api.output()}`,
    });
    assert.equal(nowReady?.body?.startup, undefined);
    assert.deepEqual(nowReady?.body?.pending_migrations, []);

    // A real request through the migrated store: a developer made by the CLI, read over HTTP.
    const created = await runCli(
      ['developers', 'create', '--name', 'After the wait', '--environment', 'sandbox', '--json'],
      environment.env,
    );
    assert.equal(created.code, 0, created.stderr);
    const developer = JSON.parse(created.stdout) as { dev_id: string; api_key: string };
    const served = await get(`${url}/v2/subscriptions`, {
      'dev-id': developer.dev_id,
      'x-api-key': developer.api_key,
    });
    assert.equal(served?.status, 200, JSON.stringify(served));

    // The worker got through too: it started and serves its queues.
    await until('the worker to start', () => /tributary started/.test(worker.output()), {
      show: () => worker.output(),
    });
  });

  test('a signal while waiting ends the process cleanly', async () => {
    await proxy.cut();
    const env = { ...environment.env, PORT: '0' };
    const waiting = await spawnService(env, ['serve', '--role', 'worker']);
    children.push(waiting);
    await until(
      'the worker to be waiting',
      () => (alive(waiting), /waiting for the database/.test(waiting.output())),
      {
        show: () => waiting.output(),
      },
    );
    waiting.process.kill('SIGTERM');
    assert.equal(await waiting.exited, 0, waiting.output());
    assert.match(waiting.output(), /stopping during start-up/);
    await proxy.restore();
  });
});

describe('embedded storage and a DATA_DIR that does not exist yet', () => {
  test('with ENCRYPTION_KEY set, serve creates DATA_DIR (0700) and starts', async (t) => {
    const parent = mkdtempSync(join(tmpdir(), 'tributary-datadir-'));
    // Under root the embedded PostgreSQL runs as an unprivileged user, who must pass through.
    chmodSync(parent, 0o711);
    t.after(() => rmSync(parent, { recursive: true, force: true }));
    const environment = await childEnvironment({ DATABASE_URL: '' });
    t.after(() => environment.cleanup());
    const dataDir = join(parent, 'not', 'there', 'yet');
    const env = { ...environment.env, DATA_DIR: dataDir, ENCRYPTION_KEY: randomBytes(32).toString('hex') };
    delete (env as Record<string, string | undefined>).DATABASE_URL;
    assert.equal(existsSync(dataDir), false);

    const service = await startService(env);
    try {
      // Nothing for others; under root the server's own group may pass through (0710).
      assert.equal(statSync(dataDir).mode & 0o767, 0o700);
      assert.equal(
        existsSync(join(dataDir, 'encryption.key')),
        false,
        'the given key is used, none generated',
      );
      assert.equal((await get(`${service.url}/health`))?.status, 200);
    } finally {
      assert.equal(await service.stop(), 0, service.output());
    }
  });
});

describe('a database migrated by a newer release', () => {
  test('this release starts against it without migrating; one from another line of releases is refused', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tributary-ahead-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const config = loadRuntimeConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' });
    const log = createLogger('silent');
    await (await startRuntime(config, 'api', log)).stop();

    const alter = async (change: string) => {
      const store = await openStore({ databaseUrl: undefined, dataDir });
      try {
        await sql.raw(change).execute(store.db);
      } finally {
        await store.close();
      }
    };
    // What a newer release leaves behind: a migration this code does not have.
    await alter(
      `INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_from_a_newer_release', '${new Date().toISOString()}')`,
    );
    const runtime = await startRuntime(config, 'api', log);
    try {
      const address = runtime.app!.server.address() as { port: number };
      const ready = await fetch(`http://127.0.0.1:${address.port}/ready`);
      assert.equal(ready.status, 200);
    } finally {
      await runtime.stop();
    }

    // Ahead and behind at once: not a newer release of this line.
    await alter(`DELETE FROM kysely_migration WHERE name = (SELECT min(name) FROM kysely_migration)`);
    await assert.rejects(startRuntime(config, 'api', log), /another line of releases/);
  });
});

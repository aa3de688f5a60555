import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import {
  embeddedConnectionString,
  embeddedPaths,
  startEmbeddedPostgres,
} from '../../src/store/embedded/server.ts';
import { childEnvironment, runCli, startService } from '../helpers/child-service.ts';
import { until } from '../helpers/until.ts';

/**
 * Embedded storage's PostgreSQL (src/store/embedded/server.ts) through real server processes:
 * its cluster in DATA_DIR, its socket the only way in, owner-only files, and the ways a server
 * can be left behind (a crash's stale postmaster.pid, a parent killed outright, with and without
 * its guard), each recovered on the next start with the committed data intact. Stopping the
 * service leaves no database process.
 */
const SERVER_MODULE = new URL('../../src/store/embedded/server.ts', import.meta.url).href;

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const postmasterPid = (dataDir: string) =>
  Number(readFileSync(join(embeddedPaths(dataDir).pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);

/** Every process whose command line names this data directory's cluster (Linux: /proc). */
function processesOf(dataDir: string): number[] {
  if (!existsSync('/proc/self')) return [];
  const { pgdata } = embeddedPaths(dataDir);
  const found: number[] = [];
  for (const entry of readdirNumeric('/proc')) {
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').includes(pgdata))
        found.push(entry);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function readdirNumeric(dir: string): number[] {
  return readdirSync(dir)
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

async function query<T extends pg.QueryResultRow>(connectionString: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/** A separate process that starts the server on `dataDir`, says "up", and waits to be killed. */
async function holder(dataDir: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { startEmbeddedPostgres } = await import(${JSON.stringify(SERVER_MODULE)});
       await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)} });
       process.stdout.write('up\\n');
       setInterval(() => {}, 60_000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('up') && resolve());
    child.once('exit', (code) => reject(new Error(`holder exited with ${code}`)));
  });
  return child;
}

describe('embedded PostgreSQL', { timeout: 300_000 }, () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'tributary-embedded-'));
    // Run as root, the server runs as an unprivileged user, who must pass through here.
    chmodSync(root, 0o711);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('a first start makes an owner-only cluster in DATA_DIR, reachable by its socket alone', async () => {
    const dataDir = join(root, 'first');
    const server = await startEmbeddedPostgres({ dataDir });
    try {
      const { pgdata } = embeddedPaths(dataDir);
      assert.equal(statSync(pgdata).mode & 0o777, 0o700);
      assert.ok(existsSync(join(pgdata, '.s.PGSQL.5432')), 'its socket is in the cluster directory');
      const [settings] = await query<{ listen: string; socket: string; whoami: string; db: string }>(
        server.connectionString,
        `select current_setting('listen_addresses') as listen, current_setting('unix_socket_permissions') as socket,
                current_user as whoami, current_database() as db`,
      );
      assert.deepEqual(settings, { listen: '', socket: '0700', whoami: 'postgres', db: 'tributary' });
      if (process.getuid?.() === 0) {
        // PostgreSQL refuses root: run as root, the server and its files belong to another user.
        assert.notEqual(statSync(pgdata).uid, 0);
        const status = readFileSync(`/proc/${postmasterPid(dataDir)}/status`, 'utf8');
        assert.doesNotMatch(status, /^Uid:\s+0\s/m, 'the postmaster does not run as root');
      }
    } finally {
      await server.stop();
    }
    assert.deepEqual(processesOf(dataDir), [], 'stop leaves no database process');
  });

  test("a statement answering a ~100 KB page reuses its backend's memory instead of mapping it anew", async (t) => {
    // A 30-day read's page of summaries is aggregated, copied and sent as ~100 KB of text. With
    // glibc's mmap threshold fixed below that size, each such block was a fresh mapping, so every
    // statement page-faulted its memory in again (issue 44). Counted, not timed: the backend's
    // minor faults across repeated statements (Linux /proc).
    if (!existsSync('/proc/self/stat')) return t.skip('needs /proc');
    const server = await startEmbeddedPostgres({ dataDir: join(root, 'page-memory') });
    const client = new pg.Client({ connectionString: server.connectionString });
    await client.connect();
    try {
      const [{ pid }] = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows as [
        { pid: number },
      ];
      const minorFaults = () =>
        Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[7]);
      // 21 records of ~4.8 KB joined, as the read's page statement joins its summaries.
      const page = {
        name: 'page-of-text',
        text: "select string_agg(repeat(md5(i::text), 150), ',' order by i) as text from generate_series(1, 21) i",
      };
      for (let run = 0; run < 5; run++) await client.query(page);
      const before = minorFaults();
      const runs = 50;
      for (let run = 0; run < runs; run++) await client.query(page);
      const perStatement = (minorFaults() - before) / runs;
      assert.ok(perStatement < 5, `${perStatement} page faults a statement`);
    } finally {
      await client.end();
      await server.stop();
    }
  });

  test('after a crash (stale postmaster.pid) the next start recovers the committed data', async () => {
    const dataDir = join(root, 'crash');
    // Left down, as when the whole service died with it.
    const first = await startEmbeddedPostgres({ dataDir, restart: false });
    await query(first.connectionString, 'create table kept (id int); insert into kept values (42)');
    const pid = postmasterPid(dataDir);
    process.kill(pid, 'SIGKILL');
    await until('the postmaster is gone', () => !isAlive(pid), { timeoutMs: 30_000 });
    await first.stop();
    assert.ok(
      existsSync(join(embeddedPaths(dataDir).pgdata, 'postmaster.pid')),
      'the crash left its lock file',
    );

    const second = await startEmbeddedPostgres({ dataDir });
    try {
      assert.deepEqual(await query(second.connectionString, 'select id from kept'), [{ id: 42 }]);
    } finally {
      await second.stop();
    }
  });

  test('a server killed under its owner is started again, with the committed data', async () => {
    const dataDir = join(root, 'restarted');
    const server = await startEmbeddedPostgres({ dataDir });
    try {
      await query(server.connectionString, 'create table kept (id int); insert into kept values (5)');
      const killed = postmasterPid(dataDir);
      process.kill(killed, 'SIGKILL');
      await until('the postmaster is gone', () => !isAlive(killed), { timeoutMs: 30_000 });
      const rows = await until(
        'the server answers again',
        () => query<{ id: number }>(server.connectionString, 'select id from kept').catch(() => undefined),
        { timeoutMs: 120_000 },
      );
      assert.deepEqual(rows, [{ id: 5 }]);
      assert.notEqual(postmasterPid(dataDir), killed);
    } finally {
      await server.stop();
    }
    assert.deepEqual(processesOf(dataDir), [], 'stop also stops the server started again');
  });

  test(
    'a parent killed outright: its guard stops the server',
    { skip: process.platform === 'win32' },
    async () => {
      const dataDir = join(root, 'guarded');
      const parent = await holder(dataDir);
      const pid = postmasterPid(dataDir);
      assert.ok(isAlive(pid));
      parent.kill('SIGKILL');
      await until('the server stopped after its parent died', () => !isAlive(pid), { timeoutMs: 60_000 });
    },
  );

  test('a server left running (parent and guard killed) is stopped by the next start', async (t) => {
    if (!existsSync('/proc/self')) return t.skip('finds the guard through /proc');
    const dataDir = join(root, 'left');
    const parent = await holder(dataDir);
    await query(embeddedConnectionString(dataDir), 'create table kept (id int); insert into kept values (7)');
    const leftPid = postmasterPid(dataDir);
    // The guard is the one process naming the cluster that is not PostgreSQL's.
    for (const pid of processesOf(dataDir))
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('/bin/sh')) process.kill(pid, 'SIGKILL');
    parent.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.ok(isAlive(leftPid), 'with its guard gone, the server outlived its parent');

    const next = await startEmbeddedPostgres({ dataDir });
    try {
      assert.equal(isAlive(leftPid), false, 'the leftover was stopped');
      assert.deepEqual(await query(next.connectionString, 'select id from kept'), [{ id: 7 }]);
    } finally {
      await next.stop();
    }
    assert.deepEqual(processesOf(dataDir), []);
  });

  test('tributary serve whose PostgreSQL is killed answers 503 problem+json, then serves again', async () => {
    const environment = await childEnvironment({ DATABASE_URL: '', DATA_DIR: join(root, 'killed') });
    const env = { ...environment.env };
    delete env.DATABASE_URL;
    delete env.DATABASE_SCHEMA;
    try {
      const service = await startService(env);
      const cli = await runCli(
        ['developers', 'create', '--name', 'Kill', '--environment', 'sandbox', '--json'],
        env,
      );
      assert.equal(cli.code, 0, cli.stderr);
      const created = JSON.parse(cli.stdout) as { dev_id: string; api_key: string };
      const headers = { 'dev-id': created.dev_id, 'x-api-key': created.api_key };
      assert.equal((await fetch(`${service.url}/v2/subscriptions`, { headers })).status, 200);
      const killed = postmasterPid(env.DATA_DIR!);
      process.kill(killed, 'SIGKILL');
      await until('the postmaster is gone', () => !isAlive(killed), { timeoutMs: 30_000 });
      // Meanwhile every answer is a 200 (served again already) or a 503 problem, never a 500.
      const answers: number[] = [];
      await until(
        'the service serves again',
        async () => {
          const response = await fetch(`${service.url}/v2/subscriptions`, { headers });
          const body = await response.text();
          answers.push(response.status);
          if (response.status !== 200) {
            assert.equal(response.status, 503, body);
            assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
          }
          return response.status === 200 && (await fetch(`${service.url}/ready`)).status === 200;
        },
        { timeoutMs: 120_000 },
      );
      assert.ok(answers.length > 0);
      assert.equal(await service.stop('SIGTERM'), 0, service.output());
      assert.deepEqual(processesOf(env.DATA_DIR!), []);
    } finally {
      await environment.cleanup();
    }
  });

  test('tributary serve stopped with SIGTERM leaves no database process', async () => {
    const environment = await childEnvironment({ DATABASE_URL: '', DATA_DIR: join(root, 'service') });
    const env = { ...environment.env };
    delete env.DATABASE_URL;
    delete env.DATABASE_SCHEMA;
    try {
      const service = await startService(env);
      const pid = postmasterPid(env.DATA_DIR!);
      assert.ok(isAlive(pid), 'the service runs its PostgreSQL');
      assert.equal((await fetch(`${service.url}/ready`)).status, 200);
      assert.equal(await service.stop('SIGTERM'), 0, service.output());
      assert.equal(isAlive(pid), false);
      assert.deepEqual(processesOf(env.DATA_DIR!), []);
    } finally {
      await environment.cleanup();
    }
  });
});

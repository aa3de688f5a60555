import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type ChildEnvironment,
  childEnvironment,
  freePort,
  type RunningService,
  runCli,
  startService,
} from '../helpers/child-service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * CLI commands beside a running server, through real processes. On embedded storage the server
 * runs its PostgreSQL and commands connect to it as clients; on PostgreSQL they write to the
 * shared database. Either way a command takes effect in the
 * running server at once, or refuses; it never reports success for a write the server misses.
 */
const embedded = !process.env.DATABASE_URL;
const embeddedOnly = { skip: !embedded && 'embedded storage only' };

async function cliJson<T>(args: string[], env: Record<string, string>): Promise<T> {
  const result = await runCli([...args, '--json'], env);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

async function cliOk(args: string[], env: Record<string, string>): Promise<string> {
  const result = await runCli(args, env);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/**
 * Every path under `root` whose mode gives group or others any access, but a group's passage
 * through the data directory (0710): run as root, the embedded PostgreSQL's own user's group.
 */
function exposedEntries(root: string): string[] {
  const exposed: string[] = [];
  const walk = (path: string) => {
    const entry = lstatSync(path);
    if (entry.isSymbolicLink()) return;
    if (entry.mode & (path === root ? 0o067 : 0o077))
      exposed.push(`${path} ${(entry.mode & 0o777).toString(8)}`);
    if (entry.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(root);
  return exposed;
}

/** A pid that certainly belongs to no running process (it ran and exited). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('CLI commands beside a running server', () => {
  let environment: ChildEnvironment;
  let server: RunningService | undefined;
  let receiver: WebhookReceiver;

  before(async () => {
    environment = await childEnvironment();
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await server?.stop('SIGTERM');
    await receiver?.close();
    await environment?.cleanup();
  });

  test('every command takes effect in the running server at once, and survives a restart', async () => {
    const { env } = environment;
    server = await startService(env);
    const call = (path: string, headers: Record<string, string>) =>
      fetch(`${server!.url}${path}`, { headers });

    const developer = await cliJson<{ dev_id: string; api_key: string }>(
      ['developers', 'create', '--name', 'Beside', '--environment', 'sandbox'],
      env,
    );
    const auth = (apiKey: string) => ({ 'dev-id': developer.dev_id, 'x-api-key': apiKey });
    assert.equal((await call('/v2/webhook', auth(developer.api_key))).status, 200, 'authenticated at once');

    // Keys: a new one works at once, a revoked one stops at once.
    const second = await cliJson<{ key_id: string; api_key: string }>(
      ['keys', 'create', developer.dev_id],
      env,
    );
    assert.equal((await call('/v2/webhook', auth(second.api_key))).status, 200);
    const keys = await cliJson<{ id: string }[]>(['keys', 'list', developer.dev_id], env);
    const first = keys.find((key) => key.id !== second.key_id)!;
    await cliOk(['keys', 'revoke', developer.dev_id, first.id], env);
    assert.equal((await call('/v2/webhook', auth(developer.api_key))).status, 401);

    // Suspend, resume, limits.
    await cliOk(['developers', 'suspend', developer.dev_id], env);
    assert.equal((await call('/v2/webhook', auth(second.api_key))).status, 403);
    await cliOk(['developers', 'resume', developer.dev_id], env);
    assert.equal((await call('/v2/webhook', auth(second.api_key))).status, 200);
    await cliOk(['developers', 'set-limit', developer.dev_id, '--hourly-days', '12000'], env);
    const listed = await cliJson<{ dev_id: string; hourly_days_limit: number | null }[]>(
      ['developers', 'list'],
      env,
    );
    assert.equal(listed.find((entry) => entry.dev_id === developer.dev_id)?.hourly_days_limit, 12000);

    // Webhook commands: the URL is the server's, and a test event is delivered by its workers.
    await cliOk(['webhook', 'set', developer.dev_id, '--url', receiver.url], env);
    const destination = (await (await call('/v2/webhook', auth(second.api_key))).json()) as { url: string };
    assert.equal(destination.url, receiver.url);
    const queued = await cliJson<{ event_id: string }>(['webhook', 'test', developer.dev_id], env);
    await receiver.waitFor(
      (list) => list.some((entry) => entry.headers['webhook-id'] === queued.event_id),
      'the test event',
      30_000,
    );

    // A sandbox user connected from the command line is the server's user.
    const connected = await cliJson<{ user_id: string; is_authenticated: boolean }>(
      ['sandbox', 'connect', '--dev-id', developer.dev_id, '--reference-id', 'cli-user'],
      env,
    );
    assert.equal(connected.is_authenticated, true);
    assert.equal((await call(`/v2/userInfo?user_id=${connected.user_id}`, auth(second.api_key))).status, 200);

    assert.match(await cliOk(['migrate'], env), /migrations up to date/);
    const failed = await runCli(['developers', 'suspend', 'nobody-00000000'], env);
    assert.equal(failed.code, 1, 'a refused command still fails with its own status');
    assert.match(failed.stderr, /no developer with dev-id "nobody-00000000"/);

    // Everything was written to the server's store: it is all there after a restart.
    assert.equal(await server.stop('SIGTERM'), 0);
    server = await startService(env);
    assert.equal((await call('/v2/webhook', auth(second.api_key))).status, 200);
    assert.equal((await call(`/v2/userInfo?user_id=${connected.user_id}`, auth(second.api_key))).status, 200);
  });

  test('a second serve on the same data directory refuses clearly', embeddedOnly, async () => {
    const { env } = environment;
    server ??= await startService(env);
    const second = await runCli(['serve'], { ...env, PORT: String(await freePort()) });
    assert.equal(second.code, 1);
    assert.match(second.stderr, /DATA_DIR .* is in use by a running tributary server \(pid \d+/);
    assert.match(second.stderr, /stop that one first, or start this one with another DATA_DIR/);
    assert.equal((await fetch(`${server.url}/ready`)).status, 200, 'the first server is untouched');
  });

  test(
    'a server killed with SIGKILL leaves a stale lock that the next process takes over',
    embeddedOnly,
    async () => {
      const { env } = environment;
      server ??= await startService(env);
      await server.stop('SIGKILL');
      server = undefined;
      assert.ok(existsSync(join(env.DATA_DIR!, 'tributary.lock')), 'the dead server left its lock');

      const listed = await cliJson<unknown[]>(['developers', 'list'], env);
      assert.ok(listed.length >= 1, 'the command took over the stale lock and ran on the store itself');
      server = await startService(env);

      // A lock naming a pid that is long gone is stale too.
      await server.stop('SIGTERM');
      server = undefined;
      writeFileSync(
        join(env.DATA_DIR!, 'tributary.lock'),
        JSON.stringify({ pid: deadPid(), command: 'developers', startedAt: new Date().toISOString() }),
        { mode: 0o600 },
      );
      await cliOk(['developers', 'list'], env);
      assert.equal(existsSync(join(env.DATA_DIR!, 'tributary.lock')), false, 'released after the command');
    },
  );
});

describe('embedded data directory permissions', embeddedOnly, () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'tributary-perms-'));
    // Run as root, the embedded PostgreSQL runs as an unprivileged user, who must pass through here.
    chmodSync(root, 0o711);
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
  });

  test('a fresh data directory created under umask 022 has nothing open to group or others', async () => {
    const environment = await childEnvironment({ DATA_DIR: join(root, 'fresh') });
    // The children inherit it: the service must not rely on the umask it is started with.
    const previous = process.umask(0o022);
    let server: RunningService | undefined;
    try {
      server = await startService(environment.env);
      await cliOk(['developers', 'create', '--name', 'Perms', '--environment', 'sandbox'], environment.env);
      assert.deepEqual(exposedEntries(join(root, 'fresh')), [], 'while the server runs');
      assert.equal(await server.stop('SIGTERM'), 0);
      server = undefined;
      // A command on its own (no server running) opens the store itself: still private.
      await cliOk(['developers', 'list'], environment.env);
      assert.deepEqual(exposedEntries(join(root, 'fresh')), [], 'after a stop and a command on its own');
    } finally {
      process.umask(previous);
      await server?.stop('SIGTERM');
      await environment.cleanup();
    }
  });

  test('an existing data directory readable by others is reported at start-up', async () => {
    const dataDir = join(root, 'shared');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    const environment = await childEnvironment({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    const server = await startService(environment.env);
    const output = server.output();
    await server.stop('SIGTERM');
    await environment.cleanup();
    assert.match(output, /DATA_DIR is accessible to other users \(mode 0755\); restrict it: chmod -R go-rwx/);
  });
});

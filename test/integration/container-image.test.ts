import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { freePort } from '../helpers/child-service.ts';
import { postgresSkipReason } from '../helpers/scratch-database.ts';
import { until } from '../helpers/until.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * The container image: `npm run image` builds it with buildah (nothing pulled); skopeo and umoci
 * show its configuration (the same as the Dockerfile's) and its files; podman runs the API and
 * worker roles from it against PostgreSQL on the host, read-only root filesystem, and one request
 * goes through each (an HTTP read on the API, a webhook delivered by the worker).
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const TOOLS = ['buildah', 'podman', 'skopeo', 'umoci'];

function run(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: ROOT,
        env: { ...process.env, ...options.env },
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

const missingTools = (
  await Promise.all(TOOLS.map(async (tool) => ((await run('which', [tool])).code === 0 ? undefined : tool)))
).filter(Boolean);
const toolsSkip =
  missingTools.length > 0
    ? `needs ${missingTools.join(', ')} (apt-get install buildah podman skopeo umoci runc)`
    : false;

/**
 * What podman needs on this sandbox: its processes lack CAP_SYS_RESOURCE, so the container's
 * limits must not exceed the current ones (podman's defaults do), and the host mounts cgroups
 * v1 and v2 side by side, which crun refuses and runc accepts.
 */
async function podmanFlags(): Promise<string[]> {
  const runc = (await run('which', ['runc'])).code === 0 ? ['--runtime', 'runc'] : [];
  return [...runc, '--ulimit', 'nofile=16384:16384', '--ulimit', 'nproc=32768:32768'];
}

/** The Dockerfile's image configuration, as the instructions that make it. */
function dockerfileConfig() {
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').split('\n');
  const final = lines.slice(lines.findLastIndex((line) => line.startsWith('FROM ')));
  const values = (instruction: string) =>
    final
      .filter((line) => line.startsWith(`${instruction} `))
      .map((line) => line.slice(instruction.length + 1));
  const healthcheck = values('HEALTHCHECK')[0] ?? '';
  return {
    user: values('USER')[0],
    workingDir: values('WORKDIR')[0],
    env: values('ENV'),
    exposed: values('EXPOSE').map((port) => `${port}/tcp`),
    volumes: values('VOLUME'),
    entrypoint: JSON.parse(values('ENTRYPOINT')[0] ?? 'null') as string[],
    cmd: JSON.parse(values('CMD')[0] ?? 'null') as string[],
    healthcheck: JSON.parse(healthcheck.slice(healthcheck.indexOf('CMD ') + 4)) as string[],
    healthcheckOptions: Object.fromEntries(
      [...healthcheck.matchAll(/--([a-z-]+)=(\S+)/g)].map((match) => [match[1]!, match[2]!]),
    ),
    versionLabel: /org\.opencontainers\.image\.version=\$\{?VERSION\}?/.test(values('LABEL').join(' '))
      ? (/^VERSION=(.+)$/.exec(values('ARG').find((arg) => arg.startsWith('VERSION=')) ?? '')?.[1] ?? null)
      : null,
  };
}

describe('container image', { skip: toolsSkip }, () => {
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;
  const image = `localhost/tributary:test-${randomBytes(4).toString('hex')}`;
  const scratch = mkdtempSync(join(tmpdir(), 'tributary-image-test-'));

  before(async () => {
    const built = await run('npm', ['run', 'image'], { env: { IMAGE: image }, timeoutMs: 600_000 });
    assert.equal(built.code, 0, `npm run image failed:\n${built.stdout}\n${built.stderr}`);
  });

  after(async () => {
    await run('podman', ['rmi', '-f', image]);
    rmSync(scratch, { recursive: true, force: true });
  });

  test('skopeo shows the configuration the Dockerfile also gives', async () => {
    // --raw: the image's own (Docker-format) config, which keeps the health check.
    const inspected = await run('skopeo', ['inspect', '--config', '--raw', `containers-storage:${image}`]);
    assert.equal(inspected.code, 0, inspected.stderr);
    const { config } = JSON.parse(inspected.stdout) as {
      config: {
        User: string;
        WorkingDir: string;
        Env: string[];
        ExposedPorts: Record<string, object>;
        Volumes: Record<string, object>;
        Entrypoint: string[];
        Cmd: string[];
        Healthcheck?: {
          Test: string[];
          Interval: number;
          Timeout: number;
          StartPeriod: number;
          Retries: number;
        };
        Labels: Record<string, string>;
      };
    };
    assert.equal(config.User, '10001:10001', 'runs as the non-root user');
    assert.deepEqual(config.Entrypoint, ['/usr/local/bin/node', '/app/bin/tributary.js']);
    assert.deepEqual(config.Healthcheck?.Test, [
      'CMD',
      '/usr/local/bin/node',
      '/app/healthcheck.mjs',
      '/health',
    ]);
    assert.equal(config.Labels['org.opencontainers.image.version'], version);

    const docker = dockerfileConfig();
    assert.equal(config.User, docker.user);
    assert.equal(config.WorkingDir, docker.workingDir);
    assert.deepEqual(config.Env.filter((entry) => !entry.startsWith('PATH=')).sort(), [...docker.env].sort());
    assert.deepEqual(Object.keys(config.ExposedPorts), docker.exposed);
    assert.deepEqual(Object.keys(config.Volumes), docker.volumes);
    assert.deepEqual(config.Entrypoint, docker.entrypoint);
    assert.deepEqual(config.Cmd, docker.cmd);
    assert.deepEqual(config.Healthcheck?.Test.slice(1), docker.healthcheck);
    const seconds = (nanoseconds: number | undefined) => `${(nanoseconds ?? 0) / 1e9}s`;
    assert.deepEqual(
      {
        interval: seconds(config.Healthcheck?.Interval),
        timeout: seconds(config.Healthcheck?.Timeout),
        'start-period': seconds(config.Healthcheck?.StartPeriod),
        retries: String(config.Healthcheck?.Retries),
      },
      docker.healthcheckOptions,
    );
    assert.equal(docker.versionLabel, version, 'the Dockerfile labels the same version');
  });

  test('umoci unpacks the files: the pinned runtime, production dependencies only, owner-only DATA_DIR', async () => {
    const layout = join(scratch, 'oci');
    // Layers copied as they are (not gzipped only to be gunzipped), and only the root filesystem
    // unpacked (not a runtime bundle with a checksummed manifest of every file): the files are
    // the same, at a fraction of the time.
    const copied = await run('skopeo', [
      'copy',
      '--dest-oci-accept-uncompressed-layers',
      `containers-storage:${image}`,
      `oci:${layout}:test`,
    ]);
    assert.equal(copied.code, 0, copied.stderr);
    const rootfs = join(scratch, 'rootfs');
    const unpacked = await run('umoci', ['raw', 'unpack', '--image', `${layout}:test`, rootfs], {
      timeoutMs: 300_000,
    });
    assert.equal(unpacked.code, 0, unpacked.stderr);

    const pinned = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        devDependencies: Record<string, string>;
      }
    ).devDependencies.node;
    const runtime = await run(join(rootfs, 'usr/local/bin/node'), ['--version']);
    assert.equal(runtime.stdout.trim(), `v${pinned}`, 'the Node of the npm node package');
    for (const present of [
      'app/bin/tributary.js',
      'app/src/runtime/main.ts',
      'app/dist/serve/manifest.json',
      'app/node_modules/pg',
      'lib64/ld-linux-x86-64.so.2',
    ])
      assert.ok(existsSync(join(rootfs, present)), `${present} is in the image`);
    for (const absent of [
      'app/node_modules/typescript',
      'app/node_modules/eslint',
      'app/test',
      'app/node_modules/node',
    ])
      assert.ok(!existsSync(join(rootfs, absent)), `${absent} is not in the image`);
    const dataDir = statSync(join(rootfs, 'var/lib/tributary'));
    assert.equal(dataDir.uid, 10001);
    assert.equal(dataDir.mode & 0o777, 0o700);
    assert.equal(statSync(join(rootfs, 'app/src')).uid, 0, 'the app belongs to root: read-only to its user');
    assert.match(readFileSync(join(rootfs, 'etc/passwd'), 'utf8'), /^tributary:x:10001:10001:/m);
  });

  test('podman runs the API and a worker against PostgreSQL on the host', async (t) => {
    const noPostgres = await postgresSkipReason();
    if (noPostgres) return t.skip(noPostgres);
    const flags = await podmanFlags();
    const probe = await run('podman', ['run', '--rm', ...flags, image, '--help']);
    if (probe.code !== 0)
      return t.skip(`podman cannot run containers here: ${probe.stderr.trim().split('\n').at(-1)}`);

    const schema = `ops_image_${randomBytes(4).toString('hex')}`;
    const port = await freePort();
    const env = {
      DATABASE_URL: process.env.DATABASE_URL!.replace('localhost', '127.0.0.1'),
      DATABASE_SCHEMA: schema,
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
    };
    const envFlags = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
    // Host networking: PostgreSQL and the webhook receiver are on the host's loopback.
    const common = [...flags, '--network', 'host', '--read-only', '--tmpfs', '/tmp', ...envFlags];
    const names = { api: `tributary-api-${schema}`, worker: `tributary-worker-${schema}` };
    const receiver = await startWebhookReceiver();
    t.after(async () => {
      await run('podman', ['rm', '-f', names.api, names.worker]);
      await receiver.close();
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
      await client.end();
    });

    for (const [role, name] of Object.entries(names)) {
      const started = await run('podman', [
        'run',
        '-d',
        '--name',
        name,
        ...common,
        image,
        'serve',
        '--role',
        role,
      ]);
      assert.equal(started.code, 0, started.stderr);
    }
    const logs = async () =>
      (await Promise.all(Object.values(names).map((name) => run('podman', ['logs', name]))))
        .map((result) => result.stdout + result.stderr)
        .join('\n');
    await until(
      'the API container to be ready',
      () =>
        fetch(`http://127.0.0.1:${port}/ready`).then(
          (response) => response.ok,
          () => false,
        ),
      { show: logs },
    );

    // The CLI from the same image, as an operator runs it.
    const cli = async (...args: string[]) => {
      const result = await run('podman', ['run', '--rm', ...common, image, ...args]);
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      return result.stdout;
    };
    const developer = JSON.parse(
      await cli('developers', 'create', '--name', 'Container', '--environment', 'sandbox', '--json'),
    ) as { dev_id: string; api_key: string };
    await cli('webhook', 'set', developer.dev_id, '--url', receiver.url);
    const response = await fetch(`http://127.0.0.1:${port}/v2/webhook`, {
      headers: { 'dev-id': developer.dev_id, 'x-api-key': developer.api_key },
    });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { url: string }).url, receiver.url);

    // The worker container delivers.
    const queued = JSON.parse(await cli('webhook', 'test', developer.dev_id, '--json')) as {
      event_id: string;
    };
    await receiver.waitFor(
      (list) => list.some((entry) => entry.headers['webhook-id'] === queued.event_id),
      'the test event, delivered by the worker container',
      60_000,
    );

    // The image's health check passes for both roles; the root filesystem is read-only.
    for (const name of Object.values(names)) {
      const health = await run('podman', ['healthcheck', 'run', name]);
      assert.equal(health.code, 0, `${name} healthcheck: ${health.stdout}${health.stderr}`);
    }
    const write = await run('podman', [
      'exec',
      names.api,
      '/usr/local/bin/node',
      '-e',
      "require('fs').writeFileSync('/app/x', '')",
    ]);
    assert.notEqual(write.code, 0, 'the root filesystem is read-only');
    assert.match(write.stderr, /EROFS|read-only/i);

    // SIGTERM: both finish and exit 0.
    for (const name of Object.values(names)) {
      const stopped = await run('podman', ['stop', '-t', '30', name]);
      assert.equal(stopped.code, 0, stopped.stderr);
      const state = await run('podman', ['inspect', name, '--format', '{{.State.ExitCode}}']);
      assert.equal(state.stdout.trim(), '0', `${name} exit code; logs:\n${await logs()}`);
    }
  });
});

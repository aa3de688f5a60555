import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { childEnvironment, freePort, runCli, startService } from '../helpers/child-service.ts';
import { DashboardClient } from '../helpers/dashboard.ts';
import { api, destinationDeliveries } from '../helpers/destinations.ts';
import { until } from '../helpers/until.ts';

/**
 * A PostgreSQL destination's URL is data (issue 40, rows 2 to 5): every query parameter but
 * sslmode, application_name and connect_timeout is refused at save with a 400 naming it, for
 * production and sandbox developers alike (a `host` that replaces the checked one, a file path
 * read on this server, a password in the query string); no secret comes back from the create
 * answer, the list, the delivery log, the dashboard or the log; the service's own database (or
 * role) is refused. The file-reading case also runs against the real service as a child process
 * under a small heap, so a regression fails this test instead of taking the machine down.
 */
const BASE = 'postgres://dest:pw@198.51.100.20:5432/analytics';
const HOSTILE: [parameter: string, value: string][] = [
  ['host', '127.0.0.1'],
  ['host', '/var/run/postgresql'],
  ['hostaddr', '127.0.0.1'],
  ['host', '169.254.169.254'],
  ['sslrootcert', '/dev/zero'],
  ['sslkey', '/dev/zero'],
  ['sslcert', '/etc/passwd'],
  ['sslcrl', '/dev/zero'],
  ['password', 'hunter2-in-query'],
  ['sslpassword', 'hunter2-in-query'],
  ['options', '-c search_path=public'],
  ['service', 'prod'],
  ['passfile', '/root/.pgpass'],
  ['user', 'postgres'],
  ['dbname', 'postgres'],
  ['port', '5433'],
  ['HOST', '127.0.0.1'],
];

const SECRET_PASSWORD = 'Pa55-never-shown-9f3a';

/** A CA-less self-signed certificate and its key, made by openssl (null when it is missing). */
function selfSigned(): { cert: string; key: string } | null {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=db.test',
        '-days',
        '2',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    };
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('PostgreSQL destination URLs are data', () => {
  let service: TestService;
  let base = '';
  let production: TestDeveloper;
  let sandbox: TestDeveloper;
  const logged: string[] = [];

  before(async () => {
    service = await startTestService({
      env: { LOG_LEVEL: 'debug', WEBHOOK_RETRY_SCALE: '0.001' },
      logTo: new Writable({
        write(chunk: Buffer, _encoding, done) {
          logged.push(chunk.toString());
          done();
        },
      }),
    });
    base = await service.app.listen({ port: 0, host: '127.0.0.1' });
    production = await createDeveloper(service.ctx, { environment: 'production', name: 'P' });
    sandbox = await createDeveloper(service.ctx, { environment: 'sandbox', name: 'S' });
  });
  after(async () => {
    await service?.close();
  });

  test('every hostile query parameter is refused at save with a 400 naming it, for every developer', async () => {
    for (const developer of [production, sandbox]) {
      for (const [parameter, value] of HOSTILE) {
        const url = `${BASE}?${parameter}=${encodeURIComponent(value)}`;
        const response = await fetch(`${base}/v2/destinations`, {
          method: 'POST',
          headers: { ...developer.headers, 'content-type': 'application/json' },
          body: JSON.stringify({ kind: 'postgresql', settings: { url } }),
        });
        const text = await response.text();
        assert.equal(response.status, 400, `${parameter}=${value}: ${text}`);
        assert.match(response.headers.get('content-type') ?? '', /application\/problem\+json/);
        const problem = JSON.parse(text) as { detail: string };
        assert.ok(problem.detail.includes(`"${parameter}"`), `${parameter}: ${problem.detail}`);
        assert.ok(!problem.detail.includes(value), `the value of ${parameter} is echoed: ${problem.detail}`);
      }
      // A socket directory or a list of hosts in the authority is refused as well.
      for (const url of [
        'postgres://dest:pw@%2Fvar%2Frun%2Fpostgresql/analytics',
        'postgres://dest:pw@127.0.0.1,10.0.0.1/analytics',
        'postgres://dest:pw@0x7f.1/analytics',
        'postgres:///analytics',
      ]) {
        const response = await api(service, developer, 'POST', '/v2/destinations', {
          kind: 'postgresql',
          settings: { url },
        });
        assert.equal(response.status, 400, `${url}: ${response.raw}`);
        assert.match(String(response.body.detail), /settings\.url/);
      }
      const list = await api(service, developer, 'GET', '/v2/destinations');
      const kinds = (list.body.destinations as { kind: string }[]).map((row) => row.kind);
      assert.deepEqual(kinds, ['webhook'], 'nothing was stored');
    }
  });

  test('TLS material is PEM text, never a path; an encrypted key is refused', async () => {
    const path = await api(service, sandbox, 'POST', '/v2/destinations', {
      kind: 'postgresql',
      settings: {
        url: 'postgres://dest:pw@127.0.0.1:1/analytics',
        tls_ca: '/etc/ssl/certs/ca-certificates.crt',
      },
    });
    assert.equal(path.status, 400, path.raw);
    assert.match(String(path.body.detail), /settings\.tls_ca: expected PEM text/);
    const huge = await api(service, sandbox, 'POST', '/v2/destinations', {
      kind: 'postgresql',
      settings: {
        url: 'postgres://dest:pw@127.0.0.1:1/analytics',
        tls_ca: `-----BEGIN CERTIFICATE-----${'A'.repeat(70_000)}`,
      },
    });
    assert.equal(huge.status, 400, huge.raw);
    assert.match(String(huge.body.detail), /settings\.tls_ca: longer than/);
  });

  test('no secret is returned: create answer, list, delivery log, dashboard, log', async (t) => {
    const pair = selfSigned();
    if (!pair) t.diagnostic('openssl is missing: the client certificate part is left out');
    const port = await freePort();
    const created = await api(service, sandbox, 'POST', '/v2/destinations', {
      kind: 'postgresql',
      name: 'warehouse',
      settings: {
        url: `postgres://dest:${SECRET_PASSWORD}@127.0.0.1:${port}/analytics?sslmode=require&application_name=tributary-test`,
        ...(pair ? { tls_cert: pair.cert, tls_key: pair.key } : {}),
      },
    });
    assert.equal(created.status, 201, created.raw);
    assert.deepEqual(created.body.settings, {
      url: `postgres://dest:***@127.0.0.1:${port}/analytics?sslmode=require&application_name=tributary-test`,
      schema: 'tributary',
      ...(pair ? { tls_cert: true } : {}),
    });
    const id = String(created.body.id);
    const sent = await api(service, sandbox, 'POST', `/v2/destinations/${id}/test`);
    assert.equal(sent.status, 202, sent.raw);
    const log = await until(
      'an attempt at the closed port',
      () => destinationDeliveries(service, sandbox, id),
      { done: (list) => list.some((delivery) => delivery.attempts.length > 0) },
    );
    const browser = new DashboardClient(service.app);
    assert.equal((await browser.signIn(sandbox.devId, sandbox.apiKey)).statusCode, 303);
    const pages = [
      created.raw,
      (await api(service, sandbox, 'GET', '/v2/destinations')).raw,
      (await api(service, sandbox, 'GET', `/v2/destinations/${id}`)).raw,
      JSON.stringify(log),
      (await browser.get('/dashboard/destinations')).body,
      (await browser.get(`/dashboard/destinations/${id}`)).body,
      logged.join(''),
    ];
    const keyLine = pair?.key.split('\n')[1] ?? 'no key';
    for (const [index, page] of pages.entries()) {
      assert.ok(!page.includes(SECRET_PASSWORD), `page ${index} shows the password`);
      assert.ok(!page.includes('PRIVATE KEY') && !page.includes(keyLine), `page ${index} shows the key`);
    }
    assert.ok(log[0]!.attempts.length > 0 && pages[3]!.includes(`127.0.0.1:${port}/analytics`));
  });

  test("the service's own database and role are refused, for every developer", async () => {
    const own = new URL(service.config.databaseUrl!);
    const user = decodeURIComponent(own.username) || 'postgres';
    const database = own.pathname.slice(1);
    const hosts = [own.hostname, own.hostname === 'localhost' ? '127.0.0.1' : 'localhost'];
    for (const developer of [sandbox, production]) {
      for (const host of hosts) {
        for (const url of [
          `postgres://someone-else:pw@${host}:${own.port || 5432}/${database}`,
          `postgres://${user}:pw@${host}:${own.port || 5432}/another_database`,
        ]) {
          const response = await api(service, developer, 'POST', '/v2/destinations', {
            kind: 'postgresql',
            settings: { url },
          });
          assert.equal(response.status, 400, `${url}: ${response.raw}`);
          // Production refuses loopback first; the sandbox names the reason.
          if (developer === sandbox)
            assert.match(String(response.body.detail), /service's own database/, response.raw);
        }
      }
    }
  });
});

/** Resident memory of the child in KiB (Linux /proc), or null where it cannot be read. */
function residentKb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

const RSS_LIMIT_MB = 700;

describe('a hostile file path under a memory limit', () => {
  test('?sslrootcert=/dev/zero is refused at save and the service stays up (heap limited to 192 MB)', async () => {
    const environment = await childEnvironment({ NODE_OPTIONS: '--max-old-space-size=192' });
    try {
      const running = await startService(environment.env, ['serve'], 180_000);
      // The heap limit does not bound Buffers (a file read lands outside the heap), so the child's
      // resident memory is watched too and the child killed past RSS_LIMIT_MB: a regression fails
      // this test, it does not take the machine.
      let overLimit = '';
      const watchdog = setInterval(() => {
        const rssKb = residentKb(running.process.pid);
        if (rssKb !== null && rssKb > RSS_LIMIT_MB * 1024) {
          overLimit = `the service grew to ${Math.round(rssKb / 1024)} MB resident`;
          running.process.kill('SIGKILL');
        }
      }, 100);
      try {
        // Embedded storage: the service made a sandbox developer at start; PostgreSQL: the CLI makes one.
        let credentials: { dev_id: string; api_key: string };
        if (environment.env.DATABASE_URL) {
          const made = await runCli(
            ['developers', 'create', '--name', 'hostile', '--environment', 'sandbox', '--json'],
            environment.env,
          );
          assert.equal(made.code, 0, made.stderr);
          credentials = JSON.parse(made.stdout) as typeof credentials;
        } else {
          credentials = JSON.parse(
            readFileSync(join(environment.env.DATA_DIR!, 'sandbox-credentials.json'), 'utf8'),
          ) as typeof credentials;
        }
        const headers = {
          'dev-id': credentials.dev_id,
          'x-api-key': credentials.api_key,
          'content-type': 'application/json',
        };
        for (const parameter of ['sslrootcert', 'sslkey', 'sslcert']) {
          const response = await fetch(`${running.url}/v2/destinations`, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              kind: 'postgresql',
              settings: { url: `postgres://dest:pw@127.0.0.1:1/analytics?${parameter}=/dev/zero` },
            }),
          });
          const text = await response.text();
          if (response.status === 201) {
            // A regression: the test send would read /dev/zero; under the heap limit the child
            // dies, and this test fails on it rather than the machine.
            const { id } = JSON.parse(text) as { id: string };
            await fetch(`${running.url}/v2/destinations/${id}/test`, { method: 'POST', headers });
            await until('the attempt', async () => {
              if (overLimit) throw new Error(overLimit);
              if (running.process.exitCode !== null)
                throw new Error(`the service died:\n${running.output()}`);
              const log = await fetch(`${running.url}/v2/destinations/${id}/deliveries`, { headers });
              return ((await log.json()) as { deliveries: { attempt_count: number }[] }).deliveries.some(
                (delivery) => delivery.attempt_count > 0,
              );
            });
          }
          assert.equal(response.status, 400, text);
          assert.ok((JSON.parse(text) as { detail: string }).detail.includes(`"${parameter}"`), text);
        }
        assert.equal(overLimit, '');
        assert.equal(running.process.exitCode, null, running.output());
        assert.equal((await fetch(`${running.url}/health`)).status, 200);
      } finally {
        clearInterval(watchdog);
        await running.stop();
      }
    } finally {
      await environment.cleanup();
    }
  });
});

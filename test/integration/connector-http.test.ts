// The provider HTTP client against a real local server: retries with jittered backoff on 5xx,
// timeouts and network errors; Retry-After honoured (sat out when short, handed back when
// long, pausing every process); one forced refresh on a 401, then the connection is broken;
// request budgets. Waits are recorded through an injected sleep, never timed.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { loadConfig } from '../../src/core/config.ts';
import {
  backoffMs,
  createProviderHttp,
  parseRetryAfter,
  type TokenSession,
} from '../../src/provider-access/http-client.ts';
import { ProviderDataError } from '../../src/provider-kit/data-source.ts';
import { fetchOriginalFit, ORIGINAL_FILE_MAX_BYTES } from '../../src/provider-kit/original-files.ts';
import { createProviderCatalog, type ResolvedProvider } from '../../src/provider-access/catalog.ts';
import { stravaRateLimit } from '../../src/providers/strava/connector.ts';
import { type FakeServer, startFakeServer } from '../fakes/fake-server.ts';

const URL_PATH = '/v2/usercollection/probe';
const DECLARED = `https://api.ouraring.com${URL_PATH}`;
const settings = {
  timeoutMs: 300,
  retries: 3,
  baseDelayMs: 100,
  maxWaitSeconds: 10,
  maxAnswerBytes: 2 ** 20,
};

describe('provider HTTP client', () => {
  let server: FakeServer;
  let provider: ResolvedProvider;
  let sleeps: number[];
  let pauses: number[];
  let budgetWaits: (number | null)[];
  let rejected: string[];
  let failed: string[];

  const session: TokenSession = {
    current: async () => 'token-1',
    rejected: async (token) => {
      rejected.push(token);
      return 'token-2';
    },
    failed: async (reason) => {
      failed.push(reason);
    },
  };
  const client = (overrides: { session?: TokenSession | null } = {}) =>
    createProviderHttp({
      provider,
      userId: 'user-1',
      session: overrides.session === undefined ? session : overrides.session,
      budget: {
        acquire: async () => budgetWaits.shift() ?? null,
        pause: async (_id, seconds) => {
          pauses.push(seconds);
        },
      },
      settings,
      clock: { now: () => new Date() },
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0.5,
    });
  const probes = () => server.requestsTo(URL_PATH);

  before(async () => {
    server = await startFakeServer({
      routes: [
        {
          method: 'GET',
          path: URL_PATH,
          handler: (request) => ({ status: 200, body: { ok: true, token: request.bearer } }),
        },
        { method: 'GET', path: '/v2/usercollection/missing', handler: () => ({ status: 404, body: {} }) },
        {
          method: 'GET',
          path: '/v2/usercollection/file/:size',
          handler: (request) => ({ status: 200, body: new Uint8Array(Number(request.params.size)) }),
        },
      ],
      faultReply(fault) {
        if (fault.kind === 'unauthorized') return { status: 401, body: { detail: 'expired' } };
        if (fault.kind === 'server_error') return { status: fault.status ?? 500, body: {} };
        return { status: 429, headers: { 'retry-after': String(fault.retryAfterSeconds ?? 30) }, body: {} };
      },
    });
    const config = loadConfig({
      DATA_DIR: '/nonexistent',
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      OURA_CLIENT_ID: 'id',
      OURA_CLIENT_SECRET: 'secret',
      OURA_BASE_URL: server.baseUrl,
    });
    provider = createProviderCatalog(config).get('OURA') as ResolvedProvider;
  });
  after(async () => server?.close());
  beforeEach(() => {
    server.clearFaults();
    server.requests.length = 0;
    sleeps = [];
    pauses = [];
    budgetWaits = [];
    rejected = [];
    failed = [];
  });

  test('the declared URL goes to <ID>_BASE_URL, with the user’s bearer token', async () => {
    assert.deepEqual(await client().json({ url: DECLARED, query: { a: 1, skipped: undefined } }), {
      ok: true,
      token: 'token-1',
    });
    assert.deepEqual(probes()[0]?.query, { a: '1' });
  });

  test('a 5xx burst is retried with exponential, jittered backoff', async () => {
    server.inject({ kind: 'server_error', status: 503, times: 3, match: URL_PATH });
    assert.deepEqual(await client().json({ url: DECLARED }), { ok: true, token: 'token-1' });
    assert.equal(probes().length, 4);
    assert.deepEqual(sleeps, [100, 200, 400], 'base x 2^attempt, x1 at the jitter midpoint');
  });

  test('a 5xx that outlasts the retries is an unavailable provider', async () => {
    server.inject({ kind: 'server_error', times: 10, match: URL_PATH });
    await assert.rejects(client().json({ url: DECLARED }), (error: unknown) => {
      assert.ok(error instanceof ProviderDataError);
      assert.equal(error.kind, 'unavailable');
      return true;
    });
    assert.equal(probes().length, 1 + settings.retries);
  });

  test('a slow answer times out and is retried', async () => {
    server.inject({ kind: 'slow', delayMs: 1_000, times: 1, match: URL_PATH });
    assert.deepEqual(await client().json({ url: DECLARED }), { ok: true, token: 'token-1' });
    assert.equal(sleeps.length, 1, 'one backoff after the timeout');
  });

  test('a short Retry-After is sat out, then the request goes through', async () => {
    server.inject({ kind: 'rate_limit', retryAfterSeconds: 2, times: 1, match: URL_PATH });
    assert.deepEqual(await client().json({ url: DECLARED }), { ok: true, token: 'token-1' });
    assert.deepEqual(sleeps, [2000]);
    assert.deepEqual(pauses, []);
  });

  test('a long Retry-After is handed back, and every process is paused', async () => {
    server.inject({ kind: 'rate_limit', retryAfterSeconds: 120, times: 1, match: URL_PATH });
    await assert.rejects(client().json({ url: DECLARED }), (error: unknown) => {
      assert.ok(error instanceof ProviderDataError);
      assert.equal(error.kind, 'rate_limited');
      assert.equal(error.retryAfterSeconds, 120);
      return true;
    });
    assert.deepEqual(pauses, [120]);
    assert.equal(probes().length, 1, 'no retry into a closed window');
  });

  test('a 401 forces one refresh and retries with the new token', async () => {
    server.inject({ kind: 'unauthorized', times: 1, match: URL_PATH });
    assert.deepEqual(await client().json({ url: DECLARED }), { ok: true, token: 'token-2' });
    assert.deepEqual(rejected, ['token-1']);
    assert.deepEqual(failed, []);
  });

  test('a 401 for the refreshed token too marks the connection broken', async () => {
    server.inject({ kind: 'unauthorized', times: 2, match: URL_PATH });
    await assert.rejects(client().json({ url: DECLARED }), (error: unknown) => {
      assert.ok(error instanceof ProviderDataError);
      assert.equal(error.kind, 'unauthorized');
      return true;
    });
    assert.deepEqual(rejected, ['token-1']);
    assert.equal(failed.length, 1);
  });

  test('absentOn statuses resolve to null', async () => {
    assert.equal(
      await client().json({ url: 'https://api.ouraring.com/v2/usercollection/missing', absentOn: [404] }),
      null,
    );
  });

  test('a file under its own cap (an original file) is read; over it, that one file fails, saying which limit', async () => {
    const file = (size: number) => `https://api.ouraring.com/v2/usercollection/file/${size}`;
    assert.equal((await client().bytes({ url: file(1000), maxBytes: 1000 }))?.byteLength, 1000);
    await assert.rejects(client().bytes({ url: file(1001), maxBytes: 1000 }), (error: unknown) => {
      assert.ok(error instanceof ProviderDataError);
      assert.equal(error.kind, 'unavailable');
      assert.match(error.message, /more than .* \(the limit of an original file\)/);
      return true;
    });
    assert.equal(sleeps.length, 0, 'too large is not retried');
    // The deployment's cap still applies when it is the lower one.
    await assert.rejects(
      client().bytes({ url: file(settings.maxAnswerBytes + 1), maxBytes: 2 ** 30 }),
      /PROVIDER_HTTP_MAX_ANSWER_MB/,
    );
    // Through the provider kit's helper, a file too large is a problem of that file, not a failed fetch.
    const original = await fetchOriginalFit(client(), 'activity-1', {
      url: file(ORIGINAL_FILE_MAX_BYTES + 1),
    });
    assert.ok(original && 'problem' in original, 'a problem, not a throw');
    assert.match(original.problem, /answered more than/);
    assert.equal(
      await fetchOriginalFit(client(), 'activity-2', {
        url: 'https://api.ouraring.com/v2/usercollection/missing',
        absentOn: [404],
      }),
      null,
    );
  });

  test('a spent budget: a short wait is sat out, a long one is handed back', async () => {
    budgetWaits = [3];
    await client().json({ url: DECLARED });
    assert.deepEqual(sleeps, [3000]);
    budgetWaits = [600];
    await assert.rejects(client().json({ url: DECLARED }), (error: unknown) => {
      assert.ok(error instanceof ProviderDataError);
      assert.equal(error.kind, 'rate_limited');
      assert.equal(error.retryAfterSeconds, 600);
      return true;
    });
  });

  test('network errors are retried, then reported', async () => {
    const closed = await startFakeServer({ routes: [], faultReply: () => ({ status: 500 }) });
    await closed.close();
    const config = loadConfig({
      DATA_DIR: '/nonexistent',
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      OURA_CLIENT_ID: 'id',
      OURA_CLIENT_SECRET: 'secret',
      OURA_BASE_URL: closed.baseUrl,
    });
    const unreachable = createProviderCatalog(config).get('OURA') as ResolvedProvider;
    const http = createProviderHttp({
      provider: unreachable,
      userId: null,
      session: null,
      budget: { acquire: async () => null, pause: async () => undefined },
      settings,
      clock: { now: () => new Date() },
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0.5,
    });
    await assert.rejects(http.json({ url: DECLARED, auth: 'app' }), /unreachable/);
    assert.equal(sleeps.length, settings.retries);
  });
});

describe('rate-limit arithmetic', () => {
  test('Retry-After: delta seconds or an HTTP date', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('17', now), 17);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now), 60);
    assert.equal(parseRetryAfter(null, now), null);
    assert.equal(parseRetryAfter('soon', now), null);
  });

  test('backoff doubles and stays within ±50 % jitter', () => {
    assert.equal(
      backoffMs(0, 100, () => 0),
      50,
    );
    assert.equal(
      backoffMs(2, 100, () => 0.999),
      600,
    );
    assert.equal(
      backoffMs(20, 100, () => 0.5),
      30_000,
      'capped',
    );
  });

  test('Strava: a spent 15-minute window waits for the next quarter hour, a spent day for midnight UTC', () => {
    const now = new Date('2026-03-01T10:07:30Z');
    const headers = (usage: string, read = '10,100') =>
      new Headers({
        'x-ratelimit-limit': '200,2000',
        'x-ratelimit-usage': usage,
        'x-readratelimit-limit': '100,1000',
        'x-readratelimit-usage': read,
      });
    assert.equal(stravaRateLimit(headers('20,200'), 200, now), null, 'room left');
    assert.deepEqual(stravaRateLimit(headers('20,200', '100,300'), 200, now), {
      retryAfterSeconds: 450,
      exhausted: true,
    });
    assert.deepEqual(stravaRateLimit(headers('20,2000'), 429, now), {
      retryAfterSeconds: 49_950,
      exhausted: true,
    });
  });
});

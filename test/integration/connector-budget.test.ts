// Per-provider request budgets on the real store: a user spends at most their share of each
// app-wide window, the app-wide window caps everyone together, two "processes" (two budget
// instances) spend from one budget, a refusal by any window takes nothing from the others, and
// a provider's "stop" pauses everyone.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createRequestBudget, parseWindows } from '../../src/provider-access/request-budget.ts';
import type { ResolvedProvider } from '../../src/provider-access/catalog.ts';
import { startTestService, type TestService } from '../helpers/app.ts';

describe('request budgets', () => {
  let service: TestService;
  let provider: ResolvedProvider;
  let now = Date.parse('2026-05-01T10:00:05Z');

  before(async () => {
    service = await startTestService({
      env: {
        STRAVA_CLIENT_ID: 'id',
        STRAVA_CLIENT_SECRET: 'secret',
        STRAVA_REQUEST_BUDGET: '8/900,6/86400',
        STRAVA_USER_SHARE: '0.5',
      },
      clock: { now: () => new Date(now) },
      work: false,
    });
    provider = service.ctx.providers.get('STRAVA') as ResolvedProvider;
  });
  after(async () => service?.close());

  test('windows are parsed from <requests>/<seconds> pairs', () => {
    assert.deepEqual(parseWindows('100/900, 1000/86400', 'X'), [
      { requests: 100, seconds: 900 },
      { requests: 1000, seconds: 86_400 },
    ]);
    assert.throws(() => parseWindows('100 per minute', 'X_REQUEST_BUDGET'), /X_REQUEST_BUDGET/);
  });

  test('a user gets their share; the app-wide window caps everyone; refusals take nothing', async () => {
    const budget = service.ctx.connectors.budget;
    const otherProcess = createRequestBudget({
      db: service.ctx.db,
      clock: service.ctx.clock,
      config: service.ctx.config,
    });
    const [busy, second, third] = [randomUUID(), randomUUID(), randomUUID()];

    // Share 0.5 of 6 a day: 3 for one user, whichever process asks.
    assert.equal(await budget.acquire(provider, busy), null);
    assert.equal(await otherProcess.acquire(provider, busy), null);
    assert.equal(await budget.acquire(provider, busy), null);
    const refused = await otherProcess.acquire(provider, busy);
    assert.ok(refused !== null && refused > 0, 'the busy user is held back until the day window rolls over');
    assert.deepEqual(
      (await budget.usage('STRAVA', busy))
        .map((row) => [row.windowSeconds, row.used])
        .sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0)),
      [
        [900, 3],
        [86_400, 3],
      ],
      'the refused attempt took nothing from the 15-minute window',
    );

    // Others still get through, until the app-wide day (6) is spent.
    assert.equal(await budget.acquire(provider, second), null);
    assert.equal(await budget.acquire(provider, second), null);
    assert.equal(await budget.acquire(provider, third), null);
    assert.ok((await budget.acquire(provider, third)) !== null, 'the app-wide window is spent');
    assert.deepEqual((await budget.usage('STRAVA')).map((row) => row.used).sort(), [6, 6]);
  });

  test('a pause from the provider holds every request until it passes', async () => {
    const budget = service.ctx.connectors.budget;
    now += 86_400_000; // a fresh day: the windows are empty again
    assert.equal(await budget.acquire(provider, null), null);
    await budget.pause('STRAVA', 120, 'test');
    assert.equal(await budget.acquire(provider, null), 120);
    now += 121_000;
    assert.equal(await budget.acquire(provider, null), null);
  });
});

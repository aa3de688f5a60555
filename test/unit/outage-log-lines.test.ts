// During a database outage every request fails alike: its 503s are one warning per outage window
// and kind, without a stack, instead of an error line with a stack trace per request. A genuine
// 500 still logs at error with its stack.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import type { App } from '../../src/http/app-type.ts';
import { createLogger } from '../../src/core/log.ts';
import { registerProblemHandling } from '../../src/http/problems.ts';
import { logLines } from '../helpers/log-lines.ts';

type Line = { level: number; msg: string; source?: string; code?: string; err?: { stack?: string } };

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

async function appWithLog() {
  const { stream, lines } = logLines<Line>();
  let at = 1_000_000;
  const app = Fastify({ loggerInstance: createLogger('info', stream, 'json') }) as unknown as App;
  registerProblemHandling(app, 'http://127.0.0.1:8080', () => at);
  app.get('/refused', async () => {
    throw pgError('55000', 'database "t" is not currently accepting connections');
  });
  app.get('/terminated', async () => {
    throw pgError('57P01', 'terminating connection due to administrator command');
  });
  app.get('/deadline', async () => {
    throw pgError('57014', 'canceling statement due to statement timeout');
  });
  app.get('/bug', async () => {
    throw new TypeError('cannot read properties of undefined');
  });
  await app.ready();
  return { app, lines, advance: (ms: number) => (at += ms) };
}

describe('logging of requests answered 503 in a database outage', () => {
  test('one warning per window and kind, no stack, however many requests', async () => {
    const { app, lines, advance } = await appWithLog();
    for (let i = 0; i < 20; i++)
      for (const url of ['/refused', '/terminated', '/deadline'])
        assert.equal((await app.inject({ url })).statusCode, 503);
    const reported = lines.filter((line) => line.level >= 40);
    assert.deepEqual(
      reported.map((line) => [line.level, line.source, line.code]),
      [
        [40, 'http', '55000'],
        [40, 'http', '57014'],
      ],
    );
    assert.ok(reported.every((line) => line.err === undefined));
    // The next window says how many failures the first one stood for.
    advance(60_000);
    await app.inject({ url: '/terminated' });
    const next = lines.filter((line) => line.level >= 40).slice(2);
    assert.deepEqual(
      next.map((line) => [
        line.level,
        line.code,
        (line as { failuresSinceLastReport?: number }).failuresSinceLastReport,
      ]),
      [[40, '57P01', 39]],
    );
    await app.close();
  });

  test('a genuine 500 still logs at error with its stack, every time', async () => {
    const { app, lines } = await appWithLog();
    for (let i = 0; i < 3; i++) assert.equal((await app.inject({ url: '/bug' })).statusCode, 500);
    const errors = lines.filter((line) => line.level >= 50);
    assert.equal(errors.length, 3);
    assert.ok(errors.every((line) => line.err?.stack?.includes('cannot read properties')));
    await app.close();
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CONNECTIONS_FOR_SERIAL_LANE,
  CONNECTIONS_PER_FILE,
  fitConcurrency,
} from '../helpers/connection-budget.ts';

test('a server with connections to spare runs the files as asked, without a word', () => {
  const server = { maxConnections: 300, reserved: 3, inUse: 10 };
  assert.deepEqual(fitConcurrency(server, 3, true), { concurrency: 3 });
});

test("a CI server's 100 connections: fewer files at once, said in one line", () => {
  const server = { maxConnections: 100, reserved: 3, inUse: 5 };
  const fit = fitConcurrency(server, 4, true);
  assert.equal(
    fit.concurrency,
    Math.floor((100 - 3 - 5 - CONNECTIONS_FOR_SERIAL_LANE) / CONNECTIONS_PER_FILE),
  );
  assert.ok(fit.concurrency < 4);
  assert.match(fit.note ?? '', /max_connections 100/);
  assert.match(fit.note ?? '', new RegExp(`${fit.concurrency} test file\\(s\\) at once instead of 4`));
  assert.equal(fit.note?.includes('\n'), false);
  // Without the serial lane, its share goes to the parallel files.
  assert.ok(fitConcurrency(server, 4, false).concurrency > fit.concurrency);
});

test('a server too small even for one file still runs one (never zero), and says it may run out', () => {
  const fit = fitConcurrency({ maxConnections: 20, reserved: 3, inUse: 2 }, 2, false);
  assert.equal(fit.concurrency, 1);
  assert.match(fit.note ?? '', /even one file at a time may run out/);
});

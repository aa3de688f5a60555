// The engine's formatter (features/output-formats/format-event.ts) reads a developer's output
// format at most once per second and process: attempts that find it stale while it is being read
// share that read instead of each sending their own (a hundred attempts in flight made a query
// each on every expiry, more than every other delivery statement together).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { createEventFormatter, FORMAT_FRESH_MS } from '../../src/features/output-formats/format-event.ts';
import { FORMAT_HEADER } from '../../src/features/output-formats/formats.ts';
import { createDeveloper, startTestService, type TestService } from '../helpers/app.ts';

describe("the delivery engine's output format reads", () => {
  let service: TestService;

  before(async () => {
    service = await startTestService();
  });
  after(async () => {
    await service?.close();
  });

  test('attempts that find the format stale at once share one read', async () => {
    const developer = await createDeveloper(service.ctx);
    let reads = 0;
    const counting: KyselyPlugin = {
      transformQuery(args) {
        if (JSON.stringify(args.node).includes('developer_output_formats')) reads++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    let now = new Date('2025-03-01T00:00:00.000Z');
    const formatter = createEventFormatter({
      db: service.ctx.db.withPlugin(counting),
      clock: { now: () => now },
    });
    const row = (n: number) => ({
      id: `evt-shared-read-${n}`,
      developer_id: developer.devId,
      type: 'healthcheck',
      created_at: now,
      body: '{"type":"healthcheck"}',
    });
    const at = (count: number) =>
      Promise.all(Array.from({ length: count }, async (_, n) => formatter.format(row(n))));

    const first = await at(20);
    assert.equal(reads, 1, 'twenty attempts, one read');
    assert.ok(first.every((formatted) => formatted.headers[FORMAT_HEADER] === 'json'));
    await at(5);
    assert.equal(reads, 1, 'remembered within a second');

    await service.ctx.outputFormats.set({ id: developer.devId }, 'fhir');
    now = new Date(now.getTime() + FORMAT_FRESH_MS);
    const second = await at(20);
    assert.equal(reads, 2, 'stale again: one more read for all of them');
    assert.ok(second.every((formatted) => formatted.headers[FORMAT_HEADER] !== undefined));
    assert.equal(second[0]!.contentType, (await formatter.format(row(0))).contentType);
  });

  test('a failed read is not remembered: the next attempt reads again', async () => {
    const developer = await createDeveloper(service.ctx);
    let reads = 0;
    const failing: KyselyPlugin = {
      transformQuery(args) {
        if (JSON.stringify(args.node).includes('developer_output_formats')) reads++;
        return args.node;
      },
      transformResult: async (args) => {
        if (reads === 1) throw new Error('the database went away');
        return args.result;
      },
    };
    const formatter = createEventFormatter({
      db: service.ctx.db.withPlugin(failing),
      clock: { now: () => new Date('2025-03-01T00:00:00.000Z') },
    });
    const row = {
      id: 'evt-failed-read',
      developer_id: developer.devId,
      type: 'healthcheck',
      created_at: new Date(),
      body: '{}',
    };
    const failed = await Promise.allSettled([formatter.format(row), formatter.format(row)]);
    assert.deepEqual(
      failed.map((result) => result.status),
      ['rejected', 'rejected'],
    );
    assert.equal(reads, 1);
    assert.equal((await formatter.format(row)).headers[FORMAT_HEADER], 'json');
    assert.equal(reads, 2);
  });
});

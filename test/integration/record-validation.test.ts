// Every normalized record is validated against the unified model before it is stored, whichever
// way it arrives (a provider's push, a fetched page): a record the model refuses is a
// NormalizationError naming the provider, the type, the payload's identity and the field; it is
// counted (`tributary_records_refused_total` on /metrics) and logged at warn with the count, and
// the rest of its batch is stored and read back.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ConnectionRow } from '../../src/features/connections/service.ts';
import type { DataPage } from '../../src/provider-kit/data-source.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { logLines } from '../helpers/log-lines.ts';
import { insertConnection } from '../helpers/users.ts';

type Line = {
  level: number;
  msg?: string;
  provider?: string;
  type?: string;
  invalid?: number;
  refused?: { item: string; field: string | null; problem: string }[];
};

const night = (id: unknown, day: string) => ({
  metadata: {
    summary_id: id,
    start_time: `${day}T23:00:00.000000+08:00`,
    end_time: `${day}T23:59:00.000000+08:00`,
    upload_type: 1,
    is_nap: false,
  },
});
const run = (id: unknown, day: string) => ({
  metadata: {
    summary_id: id,
    start_time: `${day}T07:00:00.000000+08:00`,
    end_time: `${day}T07:40:00.000000+08:00`,
    type: 8,
    upload_type: 1,
  },
});

describe('every normalized record is validated against the model before it is stored', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let user: ConnectionRow;
  const { stream, lines } = logLines<Line>();
  const read = async (type: string, from: string, to: string) => {
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/${type}?user_id=${user.id}&start_date=${from}&end_date=${to}&to_webhook=false`,
      headers: developer.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { data: { metadata: { summary_id: string } }[] }).data.map(
      (record) => record.metadata.summary_id,
    );
  };
  const refusedMetric = async () => {
    const metrics = await service.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(metrics.statusCode, 200);
    return metrics.body.split('\n').filter((line) => line.startsWith('tributary_records_refused_total{'));
  };

  before(async () => {
    service = await startTestService({ env: { LOG_LEVEL: 'warn' }, work: false, logTo: stream });
    developer = await createDeveloper(service.ctx);
    // An on-device source: nothing is fetched on read, so a read shows exactly what was stored.
    user = await insertConnection(service.ctx, { developerId: developer.devId, provider: 'APPLE' });
  });
  after(async () => {
    await service?.close();
  });

  test('a pushed batch: the invalid record is refused by name, the valid one stored', async () => {
    const result = await service.ctx.db
      .transaction()
      .execute((trx) =>
        service.ctx.data.ingest(
          trx,
          user,
          'sleep',
          [night('night-ok', '2026-03-01'), night(93845, '2026-03-02')],
          undefined,
          { emit: false },
        ),
      );
    assert.deepEqual(result, { stored: 1, invalid: 1 });
    assert.deepEqual(await read('sleep', '2026-03-01', '2026-03-03'), ['night-ok']);

    const line = lines.find(
      (entry) => entry.msg === 'provider records failed model validation and were not stored',
    );
    assert.ok(line, JSON.stringify(lines));
    assert.equal(line.level, 40, 'logged at warn');
    assert.equal(line.provider, 'APPLE');
    assert.equal(line.invalid, 1);
    assert.equal(
      line.refused?.[0]?.item,
      'APPLE sleep 93845',
      'names the provider, the type and the payload',
    );
    assert.equal(line.refused?.[0]?.field, 'metadata.summary_id');
    assert.match(line.refused?.[0]?.problem ?? '', /^APPLE sleep 93845: metadata\.summary_id /);

    assert.deepEqual(await refusedMetric(), [
      'tributary_records_refused_total{provider="APPLE",type="sleep",stage="model",field="metadata.summary_id"} 1',
    ]);
  });

  test('a fetched page: model refusals and normalizer refusals counted, the rest of the batch kept', async () => {
    async function* pages(): AsyncIterable<DataPage> {
      yield {
        records: [run('run-1', '2026-03-05'), run(1043, '2026-03-05'), run('run-2', '2026-03-06')],
        rejected: [
          { item: 'APPLE workout w-9', problem: 'APPLE workout w-9: expected an object, got a list' },
        ],
        raw: { page: 1 },
      };
      yield { records: [run('run-3', '2026-03-06'), { metadata: { type: 8 } }], raw: { page: 2 } };
    }
    const stored = await service.ctx.data.intakeChanged(
      user,
      'activity',
      { fromDay: '2026-03-05', toDay: '2026-03-07' },
      pages(),
    );
    assert.equal(stored, 3);
    assert.deepEqual((await read('activity', '2026-03-05', '2026-03-07')).sort(), [
      'run-1',
      'run-2',
      'run-3',
    ]);

    const named = lines
      .filter((entry) => entry.msg === 'provider records failed model validation and were not stored')
      .flatMap((entry) => entry.refused ?? [])
      .map((entry) => entry.item);
    assert.ok(named.includes('APPLE activity 1043'), named.join(', '));
    assert.ok(
      named.includes('APPLE activity (record 1 of the batch, no identity)'),
      `a record without any identity is named by its place: ${named.join(', ')}`,
    );
    const metric = await refusedMetric();
    assert.ok(
      metric.includes(
        'tributary_records_refused_total{provider="APPLE",type="activity",stage="model",field="metadata.summary_id"} 1',
      ),
      metric.join('\n'),
    );
    assert.ok(
      metric.includes(
        'tributary_records_refused_total{provider="APPLE",type="activity",stage="normalizer",field=""} 1',
      ),
      metric.join('\n'),
    );
    assert.equal(
      metric
        .filter((entry) => entry.includes('type="activity"'))
        .reduce((sum, entry) => sum + Number(entry.split(' ').at(-1)), 0),
      3,
      'every refused record of the fetch is counted once',
    );
  });
});

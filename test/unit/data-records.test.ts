import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dataTypeNames, dataTypes } from '../../src/model/index.ts';
import { planChunks } from '../../src/features/data/deliver.ts';
import { filterOf, parseBound, parseWindow, windowOf } from '../../src/features/data/params.ts';
import { anchorOf, mergeSamples, prepareRecord, splitSamples } from '../../src/features/data/records.ts';
import { uncoveredDays } from '../../src/features/data/provider-fetch.ts';
import { generate } from '../../src/providers/sandbox/generate.ts';

describe('sample split and merge', () => {
  test('every type round-trips byte for byte; the summary is the record with samples emptied', () => {
    for (const type of dataTypeNames) {
      const records = generate(type, {
        seed: 'split-merge',
        startDate: '2024-01-01',
        endDate: '2024-01-15',
        withSamples: true,
      });
      assert.ok(records.length > 0, type);
      for (const record of records) {
        const split = splitSamples(record, dataTypes[type].samplePaths);
        assert.deepEqual(JSON.parse(split.summary), dataTypes[type].stripSamples(record as never), type);
        assert.equal(mergeSamples(split.summary, split.samples, split.splices), JSON.stringify(record), type);
        if (split.samples) assert.equal(typeof JSON.parse(split.samples), 'object');
      }
    }
  });

  test('a record without samples is stored whole, with nothing to splice', () => {
    const split = splitSamples({ a: 1, b: { c: [] } }, ['b.c']);
    assert.deepEqual(split, { summary: '{"a":1,"b":{"c":[]}}', samples: null, splices: null });
  });

  test('strings that look like the marker are just data', () => {
    const record = { text: '\u0001deadbeef:0', list: { samples: [1, 2] } };
    const split = splitSamples(record, ['list.samples']);
    assert.equal(mergeSamples(split.summary, split.samples, split.splices), JSON.stringify(record));
  });

  test('invalid records are refused with the failing path', () => {
    const prepared = prepareRecord('activity', { metadata: { summary_id: 'x' } }, new Date());
    assert.equal(prepared.ok, false);
    if (!prepared.ok) assert.match(prepared.problem, /must have required properties/);
  });
});

describe('anchors', () => {
  test('the local date written in the datetime is the day', () => {
    const anchor = anchorOf('2024-03-01T23:30:00.000000-05:00');
    assert.equal(anchor?.day, '2024-03-01');
    assert.equal(anchor?.at.toISOString(), '2024-03-02T04:30:00.000Z');
  });

  test('without an offset the time is local, read as UTC', () => {
    assert.equal(anchorOf('2024-03-01T10:00:00')?.at.toISOString(), '2024-03-01T10:00:00.000Z');
    assert.equal(anchorOf('not a time'), null);
  });
});

describe('windows', () => {
  const now = new Date('2025-03-10T10:00:00Z');

  test('dates: half-open local days, synced exactly', () => {
    const window = parseWindow({ start_date: '2024-01-01', end_date: '2024-01-31' }, now);
    assert.equal(window.syncStartDay, '2024-01-01');
    assert.equal(window.syncEndDay, '2024-01-31');
    const filter = filterOf(window);
    assert.equal(filter.fromDay, '2024-01-01');
    assert.equal(filter.toDay, '2024-01-31');
  });

  test('unix seconds: instants, with the local days around them synced', () => {
    const window = windowOf(parseBound('start_date', '1704067200'), parseBound('end_date', '1704153600'));
    assert.equal(window.syncStartDay, '2023-12-31');
    assert.equal(window.syncEndDay, '2024-01-03');
    const filter = filterOf(window);
    assert.equal(filter.fromDay, null);
    assert.equal(filter.fromAt.toISOString(), '2024-01-01T00:00:00.000Z');
    assert.equal(filter.toAt.toISOString(), '2024-01-02T00:00:00.000Z');
  });

  test('no end_date: through today (dates) or up to now (unix seconds)', () => {
    assert.deepEqual(parseWindow({ start_date: '2025-03-01' }, now).end, { kind: 'date', day: '2025-03-11' });
    assert.deepEqual(parseWindow({ start_date: '1741564800' }, now).end, {
      kind: 'instant',
      ms: now.getTime(),
    });
    assert.deepEqual(parseWindow({ start_date: '2026-01-01' }, now).end, { kind: 'date', day: '2026-01-01' });
  });
});

describe('sync coverage', () => {
  test('gaps between covered ranges', () => {
    const covered = [
      { start_day: '2024-01-03', end_day: '2024-01-05' },
      { start_day: '2024-01-04', end_day: '2024-01-08' },
      { start_day: '2024-01-10', end_day: '2024-01-12' },
    ];
    assert.deepEqual(uncoveredDays('2024-01-01', '2024-01-15', covered), [
      ['2024-01-01', '2024-01-03'],
      ['2024-01-08', '2024-01-10'],
      ['2024-01-12', '2024-01-15'],
    ]);
    assert.deepEqual(uncoveredDays('2024-01-04', '2024-01-07', covered), []);
    assert.deepEqual(uncoveredDays('2024-01-01', '2024-01-02', []), [['2024-01-01', '2024-01-02']]);
  });
});

describe('webhook chunk plan', () => {
  const sizes = (...bytes: number[]) =>
    bytes.map((size, index) => ({ identity_key: `k${index}`, bytes: size }));

  test('at most maxObjects records and maxBytes of body per chunk, in order', () => {
    const plan = planChunks(sizes(10, 10, 10, 10, 10), { maxObjects: 2, maxBytes: 1000, reservedBytes: 100 });
    assert.deepEqual(plan, [['k0', 'k1'], ['k2', 'k3'], ['k4']]);
    const bySize = planChunks(sizes(400, 400, 400), { maxObjects: 10, maxBytes: 1000, reservedBytes: 100 });
    assert.deepEqual(bySize, [['k0', 'k1'], ['k2']]);
  });

  test('an oversized record travels alone; no records is one empty chunk', () => {
    assert.deepEqual(planChunks(sizes(5000, 10), { maxObjects: 10, maxBytes: 1000, reservedBytes: 0 }), [
      ['k0'],
      ['k1'],
    ]);
    assert.deepEqual(planChunks([], { maxObjects: 10, maxBytes: 1000, reservedBytes: 0 }), [[]]);
  });
});

// The merge engine's guarantees, checked over generated multi-source days (fast-check): cumulative
// values never count a stretch of time twice and never exceed what the sources' rates allow, gaps
// are filled, the best source is kept whole, and merged records depend only on the stored records
// and the priorities (not on the order they arrive in, not on repeats), with every value traced to
// a stored record.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { mergeCumulative, type Slice, totalOf } from '../../src/features/merge/engine/cumulative.ts';
import { mergeRecords, type MergedRecord } from '../../src/features/merge/engine/merge-records.ts';
import type { SourcedRecord } from '../../src/features/merge/engine/provenance.ts';
import { deviceKindNamed, type Source } from '../../src/features/merge/engine/sources.ts';
import { formatDateTime } from '../../src/model/time.ts';

const DAY_START = Date.parse('2026-03-10T00:00:00Z');
const MINUTE = 60_000;

/** A source's slices: positive durations inside one day, whole minutes so the sums are exact enough. */
const slicesArb = fc.array(
  fc
    .record({
      start: fc.integer({ min: 0, max: 1439 }),
      minutes: fc.integer({ min: 1, max: 180 }),
      value: fc.integer({ min: 0, max: 5000 }),
    })
    .map(({ start, minutes, value }) => ({
      startMs: DAY_START + start * MINUTE,
      endMs: DAY_START + Math.min(1440, start + minutes) * MINUTE,
      value,
    })),
  { maxLength: 30 },
);
const sourcesArb = fc.array(slicesArb, { minLength: 1, maxLength: 4 });

type Raw = { startMs: number; endMs: number; value: number };
const tagged = (sources: Raw[][]): Slice<number>[][] =>
  sources.map((slices, source) => slices.map((slice) => ({ ...slice, item: source })));

/** The breakpoints of every slice: between two, every slice either covers the whole segment or none of it. */
function segments(sources: Raw[][]): [number, number][] {
  const points = [...new Set(sources.flat().flatMap((slice) => [slice.startMs, slice.endMs]))].sort(
    (a, b) => a - b,
  );
  return points.slice(1).map((end, index) => [points[index]!, end]);
}

test('cumulative: chosen pieces never overlap, so no stretch of time counts twice', () => {
  fc.assert(
    fc.property(sourcesArb, (sources) => {
      const pieces = mergeCumulative(tagged(sources));
      for (let index = 1; index < pieces.length; index++) {
        assert.ok(pieces[index]!.startMs >= pieces[index - 1]!.endMs, 'two chosen pieces overlap');
      }
    }),
  );
});

test('cumulative: the total never exceeds the union-of-time bound (the highest rate at every moment)', () => {
  fc.assert(
    fc.property(sourcesArb, (sources) => {
      const total = totalOf(mergeCumulative(tagged(sources)));
      let bound = 0;
      for (const [from, to] of segments(sources)) {
        const rates = sources
          .flat()
          .filter((slice) => slice.startMs <= from && slice.endMs >= to)
          .map((slice) => slice.value / (slice.endMs - slice.startMs));
        bound += Math.max(0, ...rates) * (to - from);
      }
      assert.ok(total <= bound + 1e-6, `total ${total} exceeds the bound ${bound}`);
    }),
  );
});

test('cumulative: every moment some source covers is covered by the merge (gaps are filled)', () => {
  fc.assert(
    fc.property(sourcesArb, (sources) => {
      const pieces = mergeCumulative(tagged(sources));
      for (const [from, to] of segments(sources)) {
        const covered = sources.flat().some((slice) => slice.startMs <= from && slice.endMs >= to);
        const merged = pieces.some((piece) => piece.startMs <= from && piece.endMs >= to);
        assert.equal(merged, covered, `segment ${from}–${to}`);
      }
    }),
  );
});

test('cumulative: the best source keeps every slice whole when its own slices do not overlap', () => {
  fc.assert(
    fc.property(sourcesArb, (sources) => {
      const best = [...sources[0]!].sort((a, b) => a.startMs - b.startMs);
      fc.pre(best.every((slice, index) => index === 0 || slice.startMs >= best[index - 1]!.endMs));
      const pieces = mergeCumulative(tagged(sources)).filter((piece) => piece.item === 0);
      assert.equal(pieces.length, best.length);
      assert.ok(pieces.every((piece) => piece.fraction === 1));
    }),
  );
});

test('cumulative: the result does not depend on the order slices arrive in, nor on a slice sent twice', () => {
  fc.assert(
    fc.property(sourcesArb, fc.func(fc.integer()), (sources, key) => {
      const once = mergeCumulative(tagged(sources));
      const shuffled = sources.map((slices) =>
        [...slices].sort((a, b) => key(a.startMs * 7 + a.value) - key(b.startMs * 7 + b.value)),
      );
      const twice = shuffled.map((slices) => [...slices, ...slices]);
      assert.equal(totalOf(mergeCumulative(tagged(twice))), totalOf(once));
      assert.deepEqual(
        mergeCumulative(tagged(shuffled)).map((piece) => [piece.startMs, piece.endMs, piece.item]),
        once.map((piece) => [piece.startMs, piece.endMs, piece.item]),
      );
    }),
  );
});

test('cumulative: a slice partly covered keeps its uncovered part, prorated', () => {
  const pieces = mergeCumulative([
    [{ startMs: 30, endMs: 60, value: 300, item: 'watch' }],
    [{ startMs: 0, endMs: 60, value: 600, item: 'phone' }],
  ]);
  assert.deepEqual(
    pieces.map((piece) => [piece.startMs, piece.endMs, piece.value, piece.item]),
    [
      [0, 30, 300, 'phone'],
      [30, 60, 300, 'watch'],
    ],
  );
});

test('cumulative: a day total is never spread; it adds what the sources above it did not count', () => {
  const day = { startMs: 0, endMs: 1000, value: 5000, item: 'watch-total', coarse: true };
  const below = mergeCumulative([[{ startMs: 100, endMs: 200, value: 800, item: 'phone' }], [day]]);
  assert.equal(totalOf(below), 5000, 'the phone’s 800 are within the watch’s 5000');
  assert.deepEqual(
    below.map((piece) => [piece.item, piece.value]),
    [
      ['watch-total', 4200],
      ['phone', 800],
    ],
  );
  const small = mergeCumulative([[{ startMs: 100, endMs: 200, value: 6000, item: 'phone' }], [day]]);
  assert.equal(totalOf(small), 6000, 'a total below what was counted adds nothing');
  const above = mergeCumulative([[day], [{ startMs: 100, endMs: 200, value: 800, item: 'phone' }]]);
  assert.equal(totalOf(above), 5000, 'a total above covers its whole day');
});

// ---- records -----------------------------------------------------------------------------------

const SOURCES: Source[] = [
  { connectionId: 'c-watch', provider: 'GARMIN', deviceKind: 'watch' },
  { connectionId: 'c-ring', provider: 'OURA', deviceKind: 'ring' },
  { connectionId: 'c-phone', provider: 'APPLE', deviceKind: 'phone' },
];

const at = (minute: number) => formatDateTime(DAY_START + minute * MINUTE, 60);

function daily(
  day: number,
  steps: { minute: number; steps: number }[],
  heartRate: number | null,
): Record<string, unknown> {
  const start = DAY_START + day * 1440 * MINUTE;
  return {
    metadata: {
      start_time: formatDateTime(start - 60 * MINUTE, 60),
      end_time: formatDateTime(start + 1380 * MINUTE, 60),
      upload_type: 1,
    },
    distance_data: {
      steps: steps.reduce((sum, sample) => sum + sample.steps, 0),
      detailed: {
        step_samples: steps.map((sample) => ({
          timestamp: at(day * 1440 + sample.minute),
          steps: sample.steps,
          timer_duration_seconds: 600,
        })),
      },
    },
    heart_rate_data:
      heartRate === null ? null : { summary: { avg_hr_bpm: heartRate }, detailed: { hr_samples: [] } },
  };
}

function session(
  kind: 'sleep' | 'activity',
  startMinute: number,
  minutes: number,
  extra: Record<string, unknown>,
  id: string,
) {
  return {
    metadata: {
      start_time: at(startMinute),
      end_time: at(startMinute + minutes),
      summary_id: id,
      type: kind === 'activity' ? 8 : undefined,
    },
    ...extra,
  };
}

const recordsArb = fc
  .array(
    fc.record({
      source: fc.integer({ min: 0, max: 2 }),
      type: fc.constantFrom('daily', 'sleep', 'activity'),
      day: fc.integer({ min: 0, max: 1 }),
      start: fc.integer({ min: 0, max: 1300 }),
      minutes: fc.integer({ min: 10, max: 500 }),
      steps: fc.array(
        fc.record({
          minute: fc.integer({ min: 0, max: 140 }).map((m) => m * 10),
          steps: fc.integer({ min: 1, max: 900 }),
        }),
        {
          maxLength: 8,
        },
      ),
      hr: fc.option(fc.integer({ min: 40, max: 180 })),
    }),
    { maxLength: 12 },
  )
  .map((specs) => {
    // One record per identity: the store keeps one row per (connection, type, key).
    const byKey = new Map<string, SourcedRecord & { type: string }>();
    specs.forEach((spec, index) => {
      const source = SOURCES[spec.source]!;
      const key = spec.type === 'daily' ? `day-${spec.day}` : `${spec.type}-${index}`;
      const unique = new Map(spec.steps.map((sample) => [sample.minute, sample]));
      const record =
        spec.type === 'daily'
          ? daily(spec.day, [...unique.values()], spec.hr)
          : session(
              spec.type,
              spec.start,
              spec.minutes,
              { heart_rate_data: spec.hr === null ? null : { summary: { avg_hr_bpm: spec.hr } } },
              key,
            );
      byKey.set(`${source.connectionId}:${spec.type}:${key}`, { source, key, record, type: spec.type });
    });
    return [...byKey.values()];
  });

const ofType = (records: (SourcedRecord & { type: string })[], type: string) =>
  records.filter((record) => record.type === type);

test('records: the merge depends only on the stored records, not on their order or repeats', () => {
  fc.assert(
    fc.property(recordsArb, fc.func(fc.integer()), (records, key) => {
      for (const type of ['daily', 'sleep', 'activity'] as const) {
        const stored = ofType(records, type);
        const shuffled = [...stored].sort(
          (a, b) => key(`${a.source.connectionId}${a.key}`) - key(`${b.source.connectionId}${b.key}`),
        );
        assert.deepEqual(mergeRecords(type, shuffled, {}), mergeRecords(type, stored, {}));
      }
    }),
  );
});

test('records: every merged value carries provenance that points to a stored record', () => {
  fc.assert(
    fc.property(recordsArb, (records) => {
      for (const type of ['daily', 'sleep', 'activity'] as const) {
        const stored = ofType(records, type);
        const known = new Set(stored.map((record) => `${record.source.connectionId}:${record.key}`));
        const merged: MergedRecord[] = mergeRecords(type, stored, {});
        for (const record of merged) {
          const { provenance } = record;
          for (const source of provenance.sources)
            assert.ok(known.has(`${source.connection_id}:${source.record}`));
          const indexes = [
            provenance.lead,
            ...provenance.alternatives,
            ...Object.values(provenance.fields).flatMap((field) => field.sources),
            ...Object.values(provenance.samples).flat(),
          ];
          for (const index of indexes) assert.ok(index >= 0 && index < provenance.sources.length);
          for (const [path, sources] of Object.entries(provenance.samples)) {
            const list = path
              .split('.')
              .reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], record);
            assert.equal((list as unknown[]).length, sources.length, path);
          }
        }
      }
    }),
  );
});

test('records: merged daily steps never exceed the sum of the best rate at every moment, and every stored record is in some merged one', () => {
  fc.assert(
    fc.property(recordsArb, (records) => {
      const stored = ofType(records, 'daily');
      const merged = mergeRecords('daily', stored, {});
      const listed = new Set(
        merged.flatMap((record) =>
          record.provenance.sources.map((source) => `${source.connection_id}:${source.record}`),
        ),
      );
      assert.equal(listed.size, stored.length);
      for (const record of merged) {
        const day = (record['metadata'] as { start_time: string }).start_time.slice(0, 10);
        const sameDay = stored.filter(
          (entry) => (entry.record['metadata'] as { start_time: string }).start_time.slice(0, 10) === day,
        );
        const steps = (record['distance_data'] as { steps: number }).steps;
        const sum = sameDay.reduce(
          (total, entry) => total + ((entry.record['distance_data'] as { steps: number }).steps ?? 0),
          0,
        );
        assert.ok(steps <= sum, `merged ${steps} > all sources together ${sum}`);
      }
    }),
  );
});

// ---- the rules, by example ---------------------------------------------------------------------

const sourced = (source: Source, key: string, record: Record<string, unknown>): SourcedRecord => ({
  source,
  key,
  record,
});
const [watch, ring, phone] = SOURCES as [Source, Source, Source];

test('sessions: the same run from a watch and an app is one workout; two runs of one watch stay two', () => {
  const strava: Source = { connectionId: 'c-strava', provider: 'STRAVA', deviceKind: 'app' };
  const merged = mergeRecords(
    'activity',
    [
      sourced(
        watch,
        'run-1',
        session(
          'activity',
          60,
          40,
          { position_data: null, heart_rate_data: { summary: { avg_hr_bpm: 150 } } },
          'run-1',
        ),
      ),
      sourced(watch, 'run-2', session('activity', 105, 30, {}, 'run-2')),
      sourced(
        strava,
        's-1',
        session(
          'activity',
          58,
          75,
          { position_data: { position_samples: [{ coords_lat_lng_deg: [1, 2] }] } },
          's-1',
        ),
      ),
    ],
    {},
  );
  assert.equal(merged.length, 2);
  const first = merged[0]!;
  assert.equal(first.provenance.sources[first.provenance.lead]!.record, 'run-1');
  assert.deepEqual(first.provenance.fields['position_data'], { rule: 'best_for_field', sources: [1] });
  assert.deepEqual((first['position_data'] as { position_samples: unknown[] }).position_samples.length, 1);
  assert.equal(merged[1]!.provenance.sources.length, 1);
});

test('sleep: the ring leads by default and a developer order can put the watch first', () => {
  const night = (source: Source, key: string, stages: number | null) =>
    sourced(
      source,
      key,
      session(
        'sleep',
        -120,
        480,
        {
          sleep_durations_data:
            stages === null ? null : { asleep: { duration_deep_sleep_state_seconds: stages } },
        },
        key,
      ),
    );
  const records = [night(watch, 'w', 3600), night(ring, 'r', 5400)];
  const byDefault = mergeRecords('sleep', records, {});
  assert.equal(byDefault.length, 1);
  assert.equal(byDefault[0]!.provenance.sources[byDefault[0]!.provenance.lead]!.provider, 'OURA');
  const watchFirst = mergeRecords('sleep', records, { sleep: ['GARMIN'] });
  assert.equal(watchFirst[0]!.provenance.sources[watchFirst[0]!.provenance.lead]!.provider, 'GARMIN');
});

test('body: every device’s weights are kept, the same reading mirrored by an app once', () => {
  const scale: Source = { connectionId: 'c-scale', provider: 'WITHINGS', deviceKind: 'scale' };
  const body = (weights: [number, number][]) => ({
    metadata: { start_time: '2026-03-10T00:00:00.000+01:00', end_time: '2026-03-11T00:00:00.000+01:00' },
    measurements_data: {
      measurements: weights.map(([minute, kg]) => ({ measurement_time: at(minute), weight_kg: kg })),
    },
  });
  const merged = mergeRecords(
    'body',
    [
      sourced(
        phone,
        'b',
        body([
          [400, 80.1],
          [600, 79.9],
        ]),
      ),
      sourced(scale, 'b', body([[400, 80.1]])),
    ],
    {},
  );
  assert.equal(merged.length, 1);
  const weights = (merged[0]!['measurements_data'] as { measurements: { weight_kg: number }[] }).measurements;
  assert.deepEqual(
    weights.map((entry) => entry.weight_kg),
    [80.1, 79.9],
  );
  const { provenance } = merged[0]!;
  assert.deepEqual(
    provenance.samples['measurements_data.measurements']!.map((index) => provenance.sources[index]!.provider),
    ['WITHINGS', 'APPLE'],
  );
});

test('daily: phone steps fill the hours the watch did not record, and overlapping hours count once', () => {
  const watchDay = daily(0, [{ minute: 600, steps: 1000 }], null);
  const phoneDay = daily(
    0,
    [
      { minute: 600, steps: 900 },
      { minute: 900, steps: 500 },
    ],
    62,
  );
  const [merged] = mergeRecords(
    'daily',
    [sourced(phone, 'day-0', phoneDay), sourced(watch, 'day-0', watchDay)],
    {},
  );
  assert.equal((merged!['distance_data'] as { steps: number }).steps, 1500);
  assert.deepEqual(merged!.provenance.fields['distance_data.steps'], { rule: 'slices', sources: [0, 1] });
  assert.equal(
    merged!.provenance.sources[merged!.provenance.fields['heart_rate_data']!.sources[0]!]!.provider,
    'APPLE',
  );
});

test('sources: a record that names its device ranks by that device’s kind; a name that says nothing leaves the provider’s', () => {
  const named = (name: unknown, hardware_version: unknown = null) =>
    deviceKindNamed({ device_data: { name, hardware_version } });
  assert.equal(named('Apple Watch'), 'watch');
  assert.equal(named('Alex’s iPhone'), 'phone');
  assert.equal(named('Withings ScanWatch 2'), 'watch');
  assert.equal(named('Oura Ring Gen3'), 'ring');
  assert.equal(named('Mi Smart Band 8'), 'band');
  assert.equal(named('Body+ smart scale'), 'scale');
  assert.equal(named('Forerunner 965'), null, 'a model name alone says nothing');
  assert.equal(named('Spring Boring Husbandry'), null, 'short words only as whole words');
  assert.equal(named(null, 'Watch6,2'), 'watch', 'the model when the name says nothing');
  assert.equal(named(42), null);
  assert.equal(deviceKindNamed({}), null);
  assert.equal(deviceKindNamed({ device_data: null }), null);
});

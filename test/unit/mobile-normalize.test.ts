import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { prepareRecord } from '../../src/features/data/records.ts';
import { chooseCumulative, chooseDiscrete } from '../../src/features/mobile/source-choice.ts';
import { buildActivity, localDayOf } from '../../src/features/mobile/unify.ts';
import { recordProblem } from '../../src/model/plausibility.ts';
import { parseHealthConnectUpload } from '../../src/provider-kit/mobile/health-connect.ts';
import {
  type DeviceClass,
  type MobileSample,
  parsePlatformTime,
} from '../../src/provider-kit/mobile/samples.ts';
import { appleMobile } from '../../src/providers/apple/mobile.ts';
import { readAppleRecord } from '../../src/providers/apple/records.ts';
import { readAppleWorkout } from '../../src/providers/apple/workouts.ts';

const sample = (
  source: string,
  device: DeviceClass,
  start: number,
  end: number,
  value: number,
): MobileSample => ({
  id: `${source}-${start}-${end}`,
  kind: 'steps',
  startMs: start * 60_000,
  endMs: end * 60_000,
  offsetMinutes: 0,
  value,
  source: { name: source, device, model: null, manufacturer: null },
});

/** The instant the tests' plausibility window is measured from. */
const NOW = Date.parse('2026-11-27T00:00:00Z');

describe('mobile normalization', () => {
  test("Apple's export dates: the positional fast path agrees with the general parser", () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('1971-01-01T00:00:00Z'),
          max: new Date('2099-12-31T00:00:00Z'),
          noInvalidDate: true,
        }),
        fc.integer({ min: -12 * 60, max: 14 * 60 }),
        (date, offset) => {
          const local = new Date(Math.floor(date.getTime() / 1000) * 1000 + offset * 60_000).toISOString();
          const sign = offset < 0 ? '-' : '+';
          const zone = `${sign}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}${String(Math.abs(offset) % 60).padStart(2, '0')}`;
          const apple = `${local.slice(0, 10)} ${local.slice(11, 19)} ${zone}`;
          const iso = `${local.slice(0, 19)}${zone.slice(0, 3)}:${zone.slice(3)}`;
          assert.deepEqual(parsePlatformTime(apple, 'd'), parsePlatformTime(iso, 'd'));
          assert.equal(parsePlatformTime(apple, 'd').ms, Math.floor(date.getTime() / 1000) * 1000);
        },
      ),
    );
    for (const bad of [
      '2026-13-01 00:00:00 +0100',
      '2026-11-20 08:00:00',
      '2026-11-20 08:0x:00 +0100',
      'yesterday',
      '2026-11-20T08:00:00',
    ])
      assert.throws(() => parsePlatformTime(bad, 'startDate'), /startDate/);
  });

  test('cumulative selection: watch first, gaps from the phone, nothing overlapping counted twice', () => {
    const chosen = chooseCumulative([
      sample('phone', 'phone', 0, 20, 1100),
      sample('watch', 'watch', 0, 10, 600),
      sample('watch', 'watch', 10, 20, 600),
      sample('phone', 'phone', 20, 30, 250),
      sample('phone', 'phone', 25, 26, 999), // overlaps the phone's own 20-30: a duplicate write
      // Overlaps 20-30 by a minute: the merge engine keeps its uncovered 30-40, prorated
      // (70 × 10/11 = 63.64); before the engine it was dropped whole.
      sample('app', 'other', 29, 40, 70),
      sample('app', 'other', 40, 41, 5),
    ]);
    assert.deepEqual(
      chosen.samples.map((s) => [s.startMs / 60_000, s.endMs / 60_000, s.value]),
      [
        [0, 10, 600],
        [10, 20, 600],
        [20, 30, 250],
        [30, 40, 63.64],
        [40, 41, 5],
      ],
    );
    assert.deepEqual(chosen.sources, ['watch', 'phone', 'app']);
  });

  test('discrete selection: the best-ranked source alone, by device kind, then time covered, then samples held', () => {
    const heartRate = (source: string, device: DeviceClass, minutes: number[]) =>
      minutes.map((minute) => ({
        ...sample(source, device, minute, minute, 60 + minute),
        kind: 'heart_rate' as const,
      }));
    const choose = (samples: MobileSample[]) => chooseDiscrete(samples, 'heart_rate');
    // A watch's two readings beat a phone app's five: the device kind comes first.
    const watchOverPhone = choose([
      ...heartRate('phone', 'phone', [1, 2, 3, 4, 5]),
      ...heartRate('watch', 'watch', [7, 9]),
    ]);
    assert.deepEqual(watchOverPhone.sources, ['watch']);
    assert.deepEqual(
      watchOverPhone.samples.map((s) => s.value),
      [67, 69],
    );
    // Two watches with instant readings (no time covered): the one holding more samples.
    assert.deepEqual(choose([...heartRate('a', 'watch', [1]), ...heartRate('b', 'watch', [2, 3])]).sources, [
      'b',
    ]);
    // The engine's default order: a scale before a phone, an app (`other`) last.
    assert.deepEqual(choose([...heartRate('p', 'phone', [1, 2]), ...heartRate('s', 'scale', [3])]).sources, [
      's',
    ]);
    assert.deepEqual(choose([...heartRate('o', 'other', [1, 2]), ...heartRate('p', 'phone', [3])]).sources, [
      'p',
    ]);
    // Equal in every way: the source name decides, whatever order the samples came in.
    const tied = [...heartRate('y', 'watch', [1]), ...heartRate('x', 'watch', [2])];
    assert.deepEqual(choose(tied).sources, ['x']);
    assert.deepEqual(choose(tied.reverse()).sources, ['x']);
  });

  test('cumulative selection: among equal devices, the source covering more time leads', () => {
    const chosen = chooseCumulative([
      sample('short', 'phone', 0, 10, 100),
      sample('long', 'phone', 5, 60, 550),
      sample('short', 'phone', 10, 12, 7),
    ]);
    assert.deepEqual(chosen.sources, ['long', 'short']);
    assert.deepEqual(
      chosen.samples.map((s) => [s.startMs / 60_000, s.endMs / 60_000, s.value]),
      [
        [0, 5, 50], // the uncovered half of short's 0-10, prorated
        [5, 60, 550],
      ],
    );
  });

  test('cumulative selection never counts a covered minute twice (any sources, any intervals)', () => {
    const arbitrary = fc.array(
      fc.record({
        source: fc.constantFrom('a', 'b', 'c'),
        start: fc.integer({ min: 0, max: 100 }),
        length: fc.integer({ min: 0, max: 30 }),
      }),
      { maxLength: 40 },
    );
    fc.assert(
      fc.property(arbitrary, (entries) => {
        const samples = entries.map((entry, index) => ({
          ...sample(
            entry.source,
            entry.source === 'a' ? 'watch' : 'phone',
            entry.start,
            entry.start + entry.length,
            1,
          ),
          id: String(index),
        }));
        const chosen = chooseCumulative(samples).samples;
        for (let i = 0; i < chosen.length; i++)
          for (let j = i + 1; j < chosen.length; j++) {
            const [x, y] = [chosen[i]!, chosen[j]!];
            const overlap =
              x.startMs === x.endMs || y.startMs === y.endMs
                ? false
                : x.startMs < y.endMs && y.startMs < x.endMs;
            assert.ok(!overlap, `${x.id} and ${y.id} overlap`);
          }
      }),
    );
  });

  test('sleep belongs to the day the night ends; units from each record', () => {
    const night = readAppleRecord({
      type: 'HKCategoryTypeIdentifierSleepAnalysis',
      value: 'HKCategoryValueSleepAnalysisAsleepCore',
      sourceName: 'Watch',
      startDate: '2026-11-19 23:00:00 +0100',
      endDate: '2026-11-20 01:00:00 +0100',
    })[0]!;
    assert.equal(localDayOf(night), '2026-11-20');
    const miles = readAppleRecord({
      type: 'HKQuantityTypeIdentifierDistanceWalkingRunning',
      unit: 'mi',
      value: '1',
      sourceName: 'iPhone',
      startDate: '2026-11-20 08:00:00 +0100',
      endDate: '2026-11-20 08:10:00 +0100',
    })[0]!;
    assert.equal(miles.value, 1609.344);
    assert.equal(miles.source.device, 'phone');
    assert.throws(
      () =>
        readAppleRecord({
          type: 'HKQuantityTypeIdentifierBodyMass',
          unit: 'furlong',
          value: '1',
          startDate: '2026-11-20 08:00:00 +0100',
        }),
      /unit "furlong"/,
    );
    assert.deepEqual(
      readAppleRecord({
        type: 'HKQuantityTypeIdentifierNewThing',
        unit: 'x',
        value: '1',
        startDate: '2026-11-20 08:00:00 +0100',
      }),
      [],
    );
  });

  test('export records without a UUID get the same id from the same content', () => {
    const element = () => ({
      name: 'Record',
      attributes: {
        type: 'HKQuantityTypeIdentifierStepCount',
        sourceName: 'iPhone',
        unit: 'count',
        value: '12',
        startDate: '2026-11-20 08:00:00 +0100',
        endDate: '2026-11-20 08:01:00 +0100',
        creationDate: '2026-11-20 08:02:00 +0100',
      },
      children: [],
    });
    const first = appleMobile.exportFile!.fromElement(element())[0]!;
    const second = appleMobile.exportFile!.fromElement({
      ...element(),
      attributes: { ...element().attributes, creationDate: '2027-01-01 00:00:00 +0100' },
    })[0]!;
    assert.equal(first.id, second.id);
    assert.match(first.id, /^h:/);
  });

  test('Health Connect: unknown record types and broken records are reported, the rest taken', () => {
    const batch = parseHealthConnectUpload(
      {
        records: [
          {
            recordType: 'StepsRecord',
            count: 5,
            startTime: '2026-11-20T08:00:00Z',
            endTime: '2026-11-20T08:01:00Z',
            metadata: { id: 'x' },
          },
          { recordType: 'TeleportRecord', metadata: { id: 'y' } },
          {
            recordType: 'WeightRecord',
            weight: { inStones: 12 },
            time: '2026-11-20T08:00:00Z',
            metadata: { id: 'z' },
          },
          'not an object',
        ],
        deletions: ['gone'],
      },
      NOW,
    );
    assert.equal(batch.samples.length, 1);
    assert.deepEqual(batch.deletions, ['gone']);
    assert.deepEqual(
      batch.invalid.map((entry) => entry.index),
      [1, 2, 3],
    );
    assert.match(batch.invalid[0]!.problem, /TeleportRecord is not supported/);
    assert.throws(() => parseHealthConnectUpload({ records: {} }, NOW), /records must be an array/);
  });

  test('any JSON in an upload is read or reported, never a crash', () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    const recordLike = fc.dictionary(
      fc.constantFrom(
        'uuid',
        'type',
        'value',
        'unit',
        'startDate',
        'endDate',
        'sourceName',
        'device',
        'metadata',
        'recordType',
        'count',
        'startTime',
        'endTime',
        'time',
        'samples',
        'stages',
        'workoutActivityType',
        'statistics',
        'route',
        'dateComponents',
      ),
      fc.oneof(
        value,
        fc.constantFrom(
          'HKQuantityTypeIdentifierStepCount',
          'StepsRecord',
          'HeartRateRecord',
          'SleepSessionRecord',
          '2026-11-20 08:00:00 +0100',
          '2026-11-20T08:00:00Z',
          'count',
          'km',
        ),
      ),
    );
    const body = fc.record({
      records: fc.array(fc.oneof(recordLike, value), { maxLength: 5 }),
      workouts: fc.array(recordLike, { maxLength: 3 }),
      activity_summaries: fc.array(recordLike, { maxLength: 3 }),
    });
    fc.assert(
      fc.property(body, (upload) => {
        for (const parse of [appleMobile.parseUpload, parseHealthConnectUpload]) {
          const batch = parse(upload as Record<string, unknown>, NOW);
          for (const sample of batch.samples)
            assert.ok(Number.isFinite(sample.startMs) && Number.isFinite(sample.endMs));
        }
      }),
      { numRuns: 300 },
    );
  });

  test('objects whose toString is not a function, and prototype names as values, fail their record only', () => {
    // Found by the property above (seed -1626183792): `{"toString": null}` in a workout's field
    // threw a TypeError out of the whole upload.
    const hostile: unknown[] = [{ toString: null }, [{ toString: null }], { valueOf: null, toString: null }];
    const fields = ['uuid', 'startDate', 'endDate', 'sourceName', 'device', 'workoutActivityType', 'value'];
    const workout = {
      workoutActivityType: 'HKWorkoutActivityTypeRunning',
      startDate: '2026-11-20 08:00:00 +0100',
      endDate: '2026-11-20 09:00:00 +0100',
    };
    for (const field of fields)
      for (const value of hostile) {
        const upload = { records: [], workouts: [{ ...workout, [field]: value }], activity_summaries: [] };
        for (const parse of [appleMobile.parseUpload, parseHealthConnectUpload])
          assert.doesNotThrow(() => parse(upload, NOW), `${field} = ${JSON.stringify(value)}`);
      }
    const sleep = (value: unknown) => ({
      type: 'HKCategoryTypeIdentifierSleepAnalysis',
      value,
      startDate: '2026-11-20 01:00:00 +0100',
      endDate: '2026-11-20 02:00:00 +0100',
      sourceName: 'Watch',
    });
    for (const value of ['toString', '__proto__', 'constructor', { toString: null }]) {
      const batch = appleMobile.parseUpload({ records: [sleep(value)] }, NOW);
      assert.equal(batch.samples.length, 0, `sleep value ${JSON.stringify(value)} is no stage`);
      assert.equal(batch.invalid.length, 1);
    }
  });
});

describe('Apple workouts: a zero distance is no measurement', () => {
  const strength = (extra: Record<string, unknown>) => ({
    workoutActivityType: 'HKWorkoutActivityTypeTraditionalStrengthTraining',
    duration: 40,
    durationUnit: 'min',
    totalDistance: '0',
    totalDistanceUnit: 'km',
    totalEnergyBurned: '210',
    totalEnergyBurnedUnit: 'kcal',
    sourceName: 'Watch',
    startDate: '2026-11-20 18:00:00 +0100',
    endDate: '2026-11-20 18:40:00 +0100',
    ...extra,
  });

  test('totalDistance="0" without distance samples: no distance (was 0 m)', () => {
    const [workout] = readAppleWorkout(strength({}));
    assert.equal(workout!.workout!.distanceMeters, null);
    const activity = buildActivity(workout!, [workout!]);
    assert.equal(activity.distance_data?.summary?.distance_meters, null);
  });

  test('totalDistance="0" with distance samples inside the workout: the samples decide', () => {
    const [workout] = readAppleWorkout(strength({ workoutActivityType: 'HKWorkoutActivityTypeWalking' }));
    const walked = readAppleRecord({
      type: 'HKQuantityTypeIdentifierDistanceWalkingRunning',
      unit: 'm',
      value: '640',
      sourceName: 'Watch',
      startDate: '2026-11-20 18:05:00 +0100',
      endDate: '2026-11-20 18:15:00 +0100',
    });
    const activity = buildActivity(workout!, [workout!, ...walked]);
    assert.equal(activity.distance_data?.summary?.distance_meters, 640);
  });

  test('a real distance is kept, and a statistic of 0 is no measurement either', () => {
    assert.equal(readAppleWorkout(strength({ totalDistance: '2.5' }))[0]!.workout!.distanceMeters, 2500);
    const statistic = {
      totalDistance: undefined,
      statistics: [{ type: 'HKQuantityTypeIdentifierDistanceWalkingRunning', sum: '0', unit: 'km' }],
    };
    assert.equal(readAppleWorkout(strength(statistic))[0]!.workout!.distanceMeters, null);
  });
});

describe('plausibility of mobile records', () => {
  const record = (fields: Record<string, unknown>) => ({
    uuid: `p-${JSON.stringify(fields)}`,
    type: 'HKQuantityTypeIdentifierHeartRate',
    unit: 'count/min',
    value: 60,
    sourceName: 'Watch',
    startDate: '2026-11-20T08:00:00+01:00',
    ...fields,
  });

  test('dates outside 1900-01-01 … now + 366 days and values outside physical ranges are refused', () => {
    const batch = appleMobile.parseUpload(
      {
        records: [
          record({}),
          record({ startDate: '9999-12-31T23:59:59+14:00' }),
          record({ startDate: '1899-12-31T23:59:59+00:00' }),
          record({ startDate: '2027-11-28T08:00:00+00:00' }),
          record({ value: 0 }),
          record({ value: 301 }),
          record({ type: 'HKQuantityTypeIdentifierBodyMass', unit: 'kg', value: -1 }),
          record({ type: 'HKQuantityTypeIdentifierBodyMass', unit: 'kg', value: 80 }),
          record({ startDate: '2027-11-27T08:00:00+00:00' }),
        ],
      },
      NOW,
    );
    assert.equal(batch.samples.length, 3);
    assert.deepEqual(
      batch.invalid.map((entry) => entry.index),
      [1, 2, 3, 4, 5, 6],
    );
    assert.match(
      batch.invalid[0]!.problem,
      /^records\[1\]: implausible: start 9999-12-31 is more than 366 days ahead/,
    );
    assert.match(batch.invalid[1]!.problem, /before 1900-01-01/);
    assert.match(batch.invalid[3]!.problem, /heart_rate 0 is outside 20…300/);
    assert.match(batch.invalid[5]!.problem, /weight -1 is outside/);
  });

  test('the same check refuses normalized provider records on the ingestion write path', () => {
    const now = new Date(NOW);
    const daily = (start: string, avg: number | null) => ({
      metadata: { start_time: start, end_time: start.replace('T00', 'T23'), upload_type: 0 },
      heart_rate_data: { summary: { avg_hr_bpm: avg } },
    });
    assert.equal(recordProblem(daily('2026-11-20T00:00:00+00:00', 60), NOW), null);
    assert.match(
      recordProblem(daily('9999-12-31T00:00:00+00:00', 60), NOW) ?? '',
      /more than 366 days ahead/,
    );
    assert.match(recordProblem(daily('2026-11-20T00:00:00+00:00', 900), NOW) ?? '', /avg_hr_bpm 900/);
    const prepared = prepareRecord('daily', daily('9999-12-31T00:00:00+00:00', 60), now);
    assert.equal(prepared.ok, false);
    assert.match(!prepared.ok ? prepared.problem : '', /^implausible: metadata.start_time/);
  });
});

describe('Apple record reading stays linear on hostile text', () => {
  test('a 64 KB device string is no device description (its pattern took 15 s)', { timeout: 30_000 }, () => {
    const [sample] = readAppleRecord({
      type: 'HKQuantityTypeIdentifierStepCount',
      unit: 'count',
      value: '5',
      sourceName: 'Phone',
      device: 'a'.repeat(65_000),
      startDate: '2026-11-20 08:00:00 +0100',
      endDate: '2026-11-20 08:01:00 +0100',
    });
    assert.equal(sample!.source.model, null);
    assert.equal(sample!.source.manufacturer, null);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { ActivityType, activityTypeName } from '../../src/model/activity-type.ts';
import { SleepLevel, StressLevel } from '../../src/model/enums.ts';
import {
  Activity,
  Athlete,
  anchorTimeOf,
  type DataTypeName,
  dataTypeNames,
  dataTypes,
  Hormone,
  identityKeyOf,
  isDataTypeName,
  Menstruation,
  MODEL_VERSION,
  modelSchemas,
  PlannedWorkoutDetails,
  Sleep,
  stripSamplesOf,
} from '../../src/model/index.ts';
import { arrayPropertyPaths, undeclaredKeys } from '../../src/model/schema-walk.ts';
import {
  addDays,
  formatDateTime,
  isIsoDate,
  isoDateToDayNumber,
  localIsoDate,
  localMidnightMs,
  offsetOfDateTime,
  parseDateTime,
} from '../../src/model/time.ts';

function assertValid(schema: TSchema, value: unknown, label = 'value'): void {
  if (!Value.Check(schema, value)) {
    const errors = [...Value.Errors(schema, value)].slice(0, 5);
    assert.fail(`${label} is invalid: ${JSON.stringify(errors, null, 2)}`);
  }
}

type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  minItems?: number;
  patternProperties?: Record<string, JsonSchema>;
  $id?: string;
};

/** An instance with every declared property present and every array holding one element. */
function maximalInstance(schema: JsonSchema): unknown {
  if (schema.anyOf) {
    const member = schema.anyOf.find((option) => option.type !== 'null') ?? schema.anyOf[0];
    return maximalInstance(member ?? {});
  }
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case 'object':
      if (schema.patternProperties) return { any_key: 1 };
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, child]) => [key, maximalInstance(child)]),
      );
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () =>
        maximalInstance(schema.items ?? {}),
      );
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return '2024-03-05T07:12:00.000000+00:00';
  }
}

function valueAt(record: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], record);
}

/** Names the model uses for time series; anything else (meals, laps' siblings, zones) is not one. */
const SAMPLE_LIKE = /samples|^laps$|^ecg_signal$|^menstruation_flow$/;

describe('time helpers', () => {
  test('formats instants with microseconds and the offset', () => {
    assert.equal(formatDateTime(Date.UTC(2024, 2, 5, 7, 12), 0), '2024-03-05T07:12:00.000000+00:00');
    assert.equal(formatDateTime(Date.UTC(2024, 2, 5, 7, 12, 3, 45), 60), '2024-03-05T08:12:03.045000+01:00');
    assert.equal(formatDateTime(Date.UTC(2024, 0, 1, 2, 0), -330), '2023-12-31T20:30:00.000000-05:30');
    assert.equal(
      formatDateTime(Date.UTC(2024, 2, 5, 23, 59, 59, 999), 0),
      '2024-03-05T23:59:59.999000+00:00',
    );
  });

  test('parses what it formats, offset included', () => {
    const instant = Date.UTC(2022, 9, 28, 9, 0, 0, 123);
    for (const offset of [0, 60, -300, 330, 765]) {
      const text = formatDateTime(instant, offset);
      assert.equal(parseDateTime(text), instant);
      assert.equal(offsetOfDateTime(text), offset);
    }
    assert.throws(() => parseDateTime('yesterday'), RangeError);
    assert.throws(() => formatDateTime(0, 24 * 60), RangeError);
  });

  test('day arithmetic works on real calendar dates only', () => {
    assert.equal(isIsoDate('2024-02-29'), true);
    assert.equal(isIsoDate('2023-02-29'), false);
    assert.equal(isIsoDate('2024-13-01'), false);
    assert.equal(isIsoDate('2024-1-01'), false);
    assert.equal(addDays('2024-02-28', 2), '2024-03-01');
    assert.equal(isoDateToDayNumber('1970-01-02'), 1);
    assert.equal(localMidnightMs('2024-03-05', 60), Date.UTC(2024, 2, 4, 23, 0));
    assert.equal(localIsoDate(Date.UTC(2024, 2, 4, 23, 30), 60), '2024-03-05');
    assert.throws(() => isoDateToDayNumber('2024-02-30'), RangeError);
  });
});

describe('enums', () => {
  test('activity types accept documented codes only', () => {
    const metadata = { summary_id: 'a', start_time: 's', end_time: 'e', upload_type: 1 };
    assertValid(Activity, { metadata: { ...metadata, type: ActivityType.RUNNING } });
    assertValid(Activity, { metadata: { ...metadata, type: 154 } });
    for (const unused of [2, 6, 72, 107, 109, 121, 155, -1]) {
      assert.equal(
        Value.Check(Activity, { metadata: { ...metadata, type: unused } }),
        false,
        `code ${unused}`,
      );
    }
    assert.equal(activityTypeName(8), 'RUNNING');
    assert.equal(activityTypeName(149), 'TRAIL_RUNNING');
    assert.equal(Object.keys(ActivityType).length, 146);
  });

  test('code tables carry their codes and reject others', () => {
    const sleep = (level: number) => ({
      metadata: { start_time: 's', end_time: 'e', upload_type: 2 },
      sleep_durations_data: { hypnogram_samples: [{ timestamp: 't', level }] },
    });
    assertValid(Sleep, sleep(SleepLevel.REM));
    assert.equal(Value.Check(Sleep, sleep(7)), false);
    assert.equal(StressLevel.NOT_ENOUGH_DATA, -1);
  });
});

describe('record schemas', () => {
  test('top-level records have unique $ids; nested schemas have none', () => {
    const ids = modelSchemas.map((schema) => (schema as JsonSchema).$id);
    assert.deepEqual(ids, [...new Set(ids)]);
    assert.ok(
      ids.includes('Activity') &&
        ids.includes('PlannedWorkoutDetails') &&
        ids.includes('PlannedWorkout') &&
        ids.includes('Athlete'),
    );
    for (const schema of modelSchemas) {
      const nested = JSON.stringify({ ...schema, $id: undefined }).match(/"\$id"/g);
      assert.equal(nested, null, `${(schema as JsonSchema).$id} embeds a schema with $id`);
    }
  });

  test('required fields are required, everything else may be absent or null', () => {
    assertValid(Hormone, { timestamp: '2024-03-05T07:00:00.000000+00:00', lh_mIU_per_ml: null });
    assert.equal(Value.Check(Hormone, { lh_mIU_per_ml: 4 }), false);
    assert.equal(
      Value.Check(Activity, { metadata: { start_time: 's', end_time: 'e', type: 8, upload_type: 1 } }),
      false,
      'activity without summary_id',
    );
    assert.equal(
      Value.Check(Sleep, { metadata: { start_time: 's', end_time: 'e' } }),
      false,
      'sleep without upload_type',
    );
    assertValid(PlannedWorkoutDetails, {});
    assertValid(Athlete, { first_name: null, devices: null });
    for (const name of dataTypeNames) {
      const schema = dataTypes[name].schema as JsonSchema;
      const nulled = Object.fromEntries(
        Object.keys(schema.properties ?? {})
          .filter((key) => key !== 'metadata' && key !== 'timestamp')
          .map((key) => [key, null]),
      );
      const required = name === 'hormone' ? { timestamp: 't' } : name === 'plannedWorkout' ? {} : undefined;
      const base = required ?? { metadata: maximalInstance(schema.properties?.metadata ?? {}) };
      assertValid(dataTypes[name].schema, { ...base, ...nulled }, `${name} with null sections`);
    }
  });

  test('a maximal instance of every schema validates and has no undeclared keys', () => {
    for (const name of dataTypeNames) {
      const instance = maximalInstance(dataTypes[name].schema as JsonSchema);
      assertValid(dataTypes[name].schema, instance, name);
      assert.deepEqual(undeclaredKeys(dataTypes[name].schema, instance), []);
    }
    assert.deepEqual(undeclaredKeys(Activity, { metadata: { summary_idd: 'x' }, extra: 1 }), [
      'metadata.summary_idd',
      'extra',
    ]);
  });

  test('both spellings of a field are accepted', () => {
    const sleepMetadata = { start_time: 's', end_time: 'e', upload_type: 2 };
    assertValid(Sleep, { metadata: sleepMetadata, scores: { sleep: 80, sleep_score: 80 } });
    const menstruation = (data: Record<string, unknown>) => ({
      metadata: { start_time: 's', end_time: 'e' },
      menstruation_data: data,
    });
    // The schema holds the current form only; the SDK's strings are converted before validation
    // (legacy-shapes.ts, tested in legacy-shapes.test.ts).
    assertValid(
      Menstruation,
      menstruation({ current_phase: 5, cycle_length_days: 28, is_predicted_cycle: false }),
    );
    assert.equal(Value.Check(Menstruation, menstruation({ current_phase: 'luteal' })), false);
    assert.equal(Value.Check(Menstruation, menstruation({ cycle_length_days: '28' })), false);
    const step = (intensity: unknown) => ({
      steps: [{ type: 'STEP', intensity, exercice_category: 'SQUAT' }],
    });
    assertValid(PlannedWorkoutDetails, step('WARMUP'));
    assertValid(PlannedWorkoutDetails, step(1));
    assert.equal(Value.Check(PlannedWorkoutDetails, step('SPRINT')), false);
    assertValid(PlannedWorkoutDetails, { metadata: { type: 'RUNNING' } });
    assertValid(PlannedWorkoutDetails, { metadata: { type: 8 } });
  });
});

describe('data type registry', () => {
  test('lists the eight historical types and the model version', () => {
    assert.deepEqual(Object.keys(dataTypes), [...dataTypeNames]);
    assert.equal(dataTypeNames.length, 8);
    assert.equal(isDataTypeName('plannedWorkout'), true);
    assert.equal(isDataTypeName('athlete'), false);
    assert.equal(MODEL_VERSION, '2022-03-16');
    assert.equal(dataTypes.plannedWorkout.acceptsWithSamples, false);
  });

  test('identity keys and anchor times', () => {
    const day = {
      start_time: '2024-03-05T00:00:00.000000+00:00',
      end_time: '2024-03-06T00:00:00.000000+00:00',
    };
    const activity = {
      metadata: {
        summary_id: 'abc',
        start_time: 's',
        end_time: 'e',
        type: 8 as const,
        upload_type: 1 as const,
      },
    };
    assert.equal(dataTypes.activity.identityKey(activity), 'abc');
    assert.equal(dataTypes.activity.anchorTime(activity), 's');
    assert.equal(dataTypes.body.identityKey({ metadata: day }), `${day.start_time}|${day.end_time}`);
    assert.equal(
      dataTypes.daily.identityKey({ metadata: { ...day, upload_type: 1 } }),
      `${day.start_time}|${day.end_time}`,
    );
    assert.equal(dataTypes.nutrition.anchorTime({ metadata: day }), day.start_time);
    assert.equal(
      dataTypes.sleep.identityKey({ metadata: { start_time: 'a', end_time: 'b', upload_type: 2 } }),
      'a|b',
    );
    assert.equal(dataTypes.hormone.identityKey({ timestamp: 't' }), 't');
    assert.equal(dataTypes.plannedWorkout.identityKey({ metadata: { id: 'p1' } }), 'p1');
    assert.equal(dataTypes.plannedWorkout.identityKey({}), null);
    // The run-time-name helpers agree with the registry.
    const name = 'activity' as DataTypeName;
    assert.equal(identityKeyOf(name, activity), 'abc');
    assert.equal(anchorTimeOf(name, activity), 's');
    const sampled = {
      ...activity,
      power_data: { avg_watts: 1, power_samples: [{ timestamp: 't', watts: 1 }] },
    };
    assert.deepEqual(stripSamplesOf(name, sampled), dataTypes.activity.stripSamples(sampled));
    assert.deepEqual((stripSamplesOf(name, sampled) as Activity).power_data?.power_samples, []);
  });
});

describe('stripSamples', () => {
  test('every listed path is an array of its schema, and every sample-like array is listed', () => {
    for (const name of dataTypeNames) {
      const arrays = arrayPropertyPaths(dataTypes[name].schema);
      const listed = [...dataTypes[name].samplePaths];
      for (const path of listed)
        assert.ok(arrays.includes(path), `${name}: ${path} is not an array property`);
      const sampleLike = arrays.filter((path) => SAMPLE_LIKE.test(path.split('.').pop() ?? ''));
      assert.deepEqual(
        [...sampleLike].sort(),
        [...listed].sort(),
        `${name}: sample-like arrays vs listed paths`,
      );
    }
  });

  test('empties exactly the sample arrays, keeps everything else, and does not mutate', () => {
    for (const name of dataTypeNames) {
      const definition = dataTypes[name];
      const full = maximalInstance(definition.schema as JsonSchema) as Parameters<
        typeof definition.stripSamples
      >[0];
      const before = structuredClone(full);
      const stripped = definition.stripSamples(full as never) as unknown;
      assert.deepEqual(full, before, `${name}: input mutated`);
      for (const path of arrayPropertyPaths(definition.schema)) {
        const value = valueAt(stripped, path);
        if (definition.samplePaths.includes(path))
          assert.deepEqual(value, [], `${name}: ${path} not emptied`);
        else assert.deepEqual(value, valueAt(full, path), `${name}: ${path} changed`);
      }
      // Restoring the emptied arrays gives back the original: nothing else changed.
      const restored = structuredClone(stripped) as Record<string, unknown>;
      for (const path of definition.samplePaths) {
        const keys = path.split('.');
        const parent = valueAt(restored, keys.slice(0, -1).join('.')) ?? restored;
        (parent as Record<string, unknown>)[keys.at(-1) ?? ''] = valueAt(full, path);
      }
      assert.deepEqual(restored, full, `${name}: more than the sample arrays changed`);
    }
  });

  test('leaves missing, null and empty arrays alone', () => {
    const record = {
      metadata: { start_time: 's', end_time: 'e', upload_type: 2 as const },
      heart_rate_data: null,
    };
    assert.equal(dataTypes.sleep.stripSamples(record), record);
    const empty = { metadata: record.metadata, sleep_durations_data: { hypnogram_samples: [] } };
    assert.equal(dataTypes.sleep.stripSamples(empty), empty);
  });
});

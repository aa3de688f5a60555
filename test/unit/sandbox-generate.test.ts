import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { ActivityType } from '../../src/model/activity-type.ts';
import { SleepLevel } from '../../src/model/enums.ts';
import {
  type Activity,
  Athlete,
  type Daily,
  type DataTypeName,
  type DataTypeRecords,
  dataTypeNames,
  dataTypes,
  type Nutrition,
  type Sleep,
} from '../../src/model/index.ts';
import { macroKeys } from '../../src/model/nutrition.ts';
import { undeclaredKeys } from '../../src/model/schema-walk.ts';
import { addDays, localIsoDate, offsetOfDateTime, parseDateTime } from '../../src/model/time.ts';
import {
  backgroundActivity,
  generate,
  generateAthlete,
  generateDay,
  generateDays,
  WORKOUT_SAMPLE_SECONDS,
} from '../../src/providers/sandbox/generate.ts';
import { encodePolyline } from '../../src/provider-kit/normalize/polyline.ts';

const SEEDS = ['user-6f1c', 'sandbox-user-2'];
const OFFSETS = [0, 330, -300];
const WIRE_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}[+-]\d{2}:\d{2}$/;

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
const mean = (values: readonly number[]) => sum(values) / values.length;
const near = (actual: number | null | undefined, expected: number, message: string, tolerance = 1e-6) =>
  assert.ok(
    actual !== null && actual !== undefined && Math.abs(actual - expected) <= tolerance,
    `${message}: ${actual} vs ${expected}`,
  );
const numbers = (values: readonly (number | null | undefined)[]) =>
  values.map((value) => value ?? Number.NaN);
const seconds = (from: string, to: string) => (parseDateTime(to) - parseDateTime(from)) / 1000;

const validators = new Map(dataTypeNames.map((name) => [name, Compile(dataTypes[name].schema)]));

function assertSchemaValid(type: DataTypeName, record: unknown): void {
  const validator = validators.get(type);
  assert.ok(validator);
  if (!validator.Check(record)) {
    const errors = [...Value.Errors(dataTypes[type].schema, record)].slice(0, 5);
    assert.fail(`${type} record invalid: ${JSON.stringify(errors, null, 2)}`);
  }
  assert.deepEqual(
    undeclaredKeys(dataTypes[type].schema, record),
    [],
    `${type} has keys the schema does not declare`,
  );
}

/** Every string that looks like a datetime is in wire form and carries the user's offset. */
function assertDatetimes(value: unknown, offset: number, path = ''): void {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) {
    assert.match(value, WIRE_DATETIME, path);
    assert.equal(offsetOfDateTime(value), offset, path);
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) assertDatetimes(item, offset, `${path}[${index}]`);
  } else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) assertDatetimes(child, offset, `${path}.${key}`);
  }
}

const range = { startDate: '2024-01-25', endDate: '2024-03-05' };
const cache = new Map<string, unknown[]>();
function records<T extends DataTypeName>(
  type: T,
  seed: string,
  withSamples = true,
  offset = 0,
): DataTypeRecords[T][] {
  const key = `${type}|${seed}|${withSamples}|${offset}`;
  if (!cache.has(key))
    cache.set(key, generate(type, { seed, ...range, withSamples, timezoneOffsetMinutes: offset }));
  return cache.get(key) as DataTypeRecords[T][];
}

describe('every generated record is valid', () => {
  for (const type of dataTypeNames) {
    test(type, () => {
      for (const seed of SEEDS) {
        for (const offset of OFFSETS) {
          const generated = generate(type, {
            seed,
            startDate: '2024-02-20',
            endDate: '2024-03-05',
            withSamples: true,
            timezoneOffsetMinutes: offset,
          });
          assert.ok(generated.length > 0, `${type} generated nothing`);
          for (const record of generated) {
            assertSchemaValid(type, record);
            assertDatetimes(record, offset);
          }
        }
        for (const record of records(type, seed, false)) assertSchemaValid(type, record);
      }
    });
  }

  test('athlete', () => {
    const athlete = generateAthlete(SEEDS[0] ?? '', '2024-03-05', 60);
    assert.ok(Value.Check(Athlete, athlete), JSON.stringify([...Value.Errors(Athlete, athlete)].slice(0, 3)));
    assert.deepEqual(undeclaredKeys(Athlete, athlete), []);
    assertDatetimes(athlete, 60);
    assert.deepEqual(generateAthlete(SEEDS[0] ?? '', '2024-03-05', 60), athlete);
    assert.equal(athlete.sex, 'female');
    assert.throws(() => generateAthlete('x', '2024-02-30'), RangeError);
  });
});

describe('determinism', () => {
  test('same seed and range give byte-identical output; another seed differs', () => {
    for (const type of dataTypeNames) {
      const options = {
        seed: 'same',
        startDate: '2024-05-01',
        endDate: '2024-05-11',
        withSamples: true,
        timezoneOffsetMinutes: 120,
      };
      assert.equal(JSON.stringify(generate(type, options)), JSON.stringify(generate(type, options)), type);
      assert.notEqual(
        JSON.stringify(generate(type, options)),
        JSON.stringify(generate(type, { ...options, seed: 'other' })),
        type,
      );
    }
  });

  test('a sub-range is the matching slice of a larger range', () => {
    for (const type of dataTypeNames) {
      const offset = 330;
      const whole = generate(type, {
        seed: 'slice',
        startDate: '2024-01-01',
        endDate: '2024-03-01',
        withSamples: true,
        timezoneOffsetMinutes: offset,
      });
      const part = generate(type, {
        seed: 'slice',
        startDate: '2024-01-20',
        endDate: '2024-02-03',
        withSamples: true,
        timezoneOffsetMinutes: offset,
      });
      const anchorDate = (record: DataTypeRecords[typeof type]) => {
        const anchor = (dataTypes[type].anchorTime as (value: typeof record) => string | null)(record);
        assert.ok(anchor, `${type} record without anchor time`);
        return localIsoDate(parseDateTime(anchor), offset);
      };
      const slice = whole.filter((record) => {
        const date = anchorDate(record);
        return date >= '2024-01-20' && date < '2024-02-03';
      });
      assert.ok(part.length > 0, type);
      assert.equal(JSON.stringify(part), JSON.stringify(slice), type);
      for (const day of generateDays(type, {
        seed: 'slice',
        startDate: '2024-01-20',
        endDate: '2024-01-23',
        timezoneOffsetMinutes: offset,
      })) {
        for (const record of day.records)
          assert.equal(anchorDate(record), day.date, `${type} record outside its day`);
      }
    }
  });

  test('withSamples=false equals stripSamples of withSamples=true', () => {
    for (const type of dataTypeNames) {
      const strip = dataTypes[type].stripSamples as (record: unknown) => unknown;
      const full = records(type, SEEDS[1] ?? '');
      assert.deepEqual(records(type, SEEDS[1] ?? '', false), full.map(strip), type);
    }
  });

  test('ranges are start-inclusive, end-exclusive, and dates are validated', () => {
    assert.equal(generate('daily', { seed: 's', startDate: '2024-01-01', endDate: '2024-01-31' }).length, 30);
    assert.deepEqual(generate('daily', { seed: 's', startDate: '2024-01-05', endDate: '2024-01-05' }), []);
    assert.throws(
      () => generate('daily', { seed: 's', startDate: '2024-13-01', endDate: '2024-12-31' }),
      RangeError,
    );
    assert.throws(
      () => generateDay('daily', { seed: 's', date: '2024-01-01', timezoneOffsetMinutes: 2000 }),
      RangeError,
    );
  });
});

describe('activity summaries agree with their samples', () => {
  const activities = SEEDS.flatMap((seed) => records('activity', seed));

  test('the test data covers moving, powered, pool and stationary workouts', () => {
    const types = new Set(activities.map((activity) => activity.metadata.type));
    const expectedTypes = [
      ActivityType.RUNNING,
      ActivityType.ROAD_BIKING,
      ActivityType.SWIMMING_SWIMMING_POOL,
      ActivityType.STRENGTH_TRAINING,
    ];
    for (const expected of expectedTypes) {
      assert.ok(types.has(expected), `no activity of type ${expected} in ${[...types]}`);
    }
  });

  test('heart rate, speed, cadence, power and torque', () => {
    for (const activity of activities) {
      const id = activity.metadata.summary_id;
      const hr = numbers(activity.heart_rate_data?.detailed?.hr_samples?.map((sample) => sample.bpm) ?? []);
      const summary = activity.heart_rate_data?.summary;
      assert.ok(hr.length > 10, id);
      assert.equal(summary?.avg_hr_bpm, round(mean(hr), 2), `${id} avg hr`);
      assert.equal(summary?.max_hr_bpm, Math.max(...hr), `${id} max hr`);
      assert.equal(summary?.min_hr_bpm, Math.min(...hr), `${id} min hr`);
      const duration = seconds(activity.metadata.start_time, activity.metadata.end_time);
      assert.equal(hr.length, duration / WORKOUT_SAMPLE_SECONDS + 1, `${id} one hr sample per interval`);
      near(
        sum(numbers(summary?.hr_zone_data?.map((zone) => zone.duration_seconds) ?? [])),
        duration,
        `${id} zones`,
      );
      const movement = activity.movement_data;
      if (movement) {
        const speed = numbers(movement.speed_samples?.map((sample) => sample.speed_meters_per_second) ?? []);
        assert.equal(movement.avg_speed_meters_per_second, round(mean(speed), 2), `${id} avg speed`);
        assert.equal(movement.max_speed_meters_per_second, Math.max(...speed), `${id} max speed`);
        const cadence = numbers(movement.cadence_samples?.map((sample) => sample.cadence_rpm) ?? []);
        assert.equal(movement.avg_cadence_rpm, round(mean(cadence), 2), `${id} avg cadence`);
        assert.equal(movement.max_cadence_rpm, Math.max(...cadence), `${id} max cadence`);
        const torque = numbers(movement.torque_samples?.map((sample) => sample.torque_newton_meters) ?? []);
        if (torque.length > 0)
          assert.equal(movement.max_torque_newton_meters, Math.max(...torque), `${id} torque`);
      }
      if (activity.power_data) {
        const watts = numbers(activity.power_data.power_samples?.map((sample) => sample.watts) ?? []);
        assert.equal(activity.power_data.avg_watts, round(mean(watts), 2), `${id} avg watts`);
        assert.equal(activity.power_data.max_watts, Math.max(...watts), `${id} max watts`);
      }
      const met = numbers(activity.MET_data?.MET_samples?.map((sample) => sample.level) ?? []);
      assert.equal(activity.MET_data?.avg_level, round(mean(met), 2), `${id} MET`);
    }
  });

  test('distance: cumulative samples, laps adding up, positions along the route', () => {
    for (const activity of activities) {
      const id = activity.metadata.summary_id;
      const total = activity.distance_data?.summary?.distance_meters ?? 0;
      const distances = numbers(
        activity.distance_data?.detailed?.distance_samples?.map((sample) => sample.distance_meters) ?? [],
      );
      const laps = activity.lap_data?.laps ?? [];
      assert.ok(laps.length >= 1, `${id} laps`);
      near(sum(numbers(laps.map((lap) => lap.distance_meters))), total, `${id} lap distances`);
      assert.equal(laps[0]?.start_time, activity.metadata.start_time, `${id} first lap start`);
      assert.equal(laps.at(-1)?.end_time, activity.metadata.end_time, `${id} last lap end`);
      near(
        sum(numbers(laps.map((lap) => lap.active_duration_seconds))),
        seconds(activity.metadata.start_time, activity.metadata.end_time),
        `${id} lap durations`,
      );
      if (!activity.movement_data) {
        assert.equal(total, 0, `${id} stationary workout covers no distance`);
        continue;
      }
      assert.ok(total > 0, `${id} moving workout covers distance`);
      assert.equal(distances[0], 0, `${id} starts at 0`);
      for (let index = 1; index < distances.length; index++) {
        assert.ok(
          (distances[index] ?? 0) >= (distances[index - 1] ?? 0),
          `${id} distance decreases at ${index}`,
        );
      }
      assert.equal(distances.at(-1), total, `${id} last distance sample`);
      const swimming = activity.distance_data?.summary?.swimming;
      if (swimming) {
        assert.ok(
          laps.every((lap) => lap.stroke_type === 'freestyle'),
          `${id} swim laps`,
        );
        assert.equal(
          sum(numbers(laps.map((lap) => lap.total_strokes))),
          swimming.num_strokes,
          `${id} strokes`,
        );
      }
      const steps = activity.distance_data?.detailed?.step_samples ?? [];
      if (steps.length > 0)
        assert.equal(
          sum(numbers(steps.map((sample) => sample.steps))),
          activity.distance_data?.summary?.steps,
          `${id} steps`,
        );
      const positions = activity.position_data?.position_samples ?? [];
      if (positions.length > 0) {
        assert.deepEqual(
          activity.position_data?.start_pos_lat_lng_deg,
          positions[0]?.coords_lat_lng_deg,
          `${id} start position`,
        );
        assert.deepEqual(
          activity.position_data?.end_pos_lat_lng_deg,
          positions.at(-1)?.coords_lat_lng_deg,
          `${id} end position`,
        );
        assert.equal(positions.length, distances.length, `${id} one position per distance sample`);
        const elevations = numbers(
          activity.distance_data?.detailed?.elevation_samples?.map((sample) => sample.elev_meters) ?? [],
        );
        assert.equal(
          activity.distance_data?.summary?.elevation?.max_meters,
          Math.max(...elevations),
          `${id} max elevation`,
        );
        assert.equal(
          activity.distance_data?.summary?.elevation?.min_meters,
          Math.min(...elevations),
          `${id} min elevation`,
        );
      }
    }
  });

  test('the route polyline encodes the position samples', () => {
    // The format's published example.
    assert.equal(
      encodePolyline([38.5, 40.7, 43.252], [-120.2, -120.95, -126.453]),
      '_p~iF~ps|U_ulLnnqC_mqNvxq`@',
    );
    for (const activity of activities) {
      const positions = activity.position_data?.position_samples ?? [];
      const polyline = activity.polyline_map_data?.summary_polyline ?? null;
      if (positions.length === 0) {
        assert.equal(polyline, null);
        continue;
      }
      const coordinates = positions.map((sample) => sample.coords_lat_lng_deg ?? [null, null]);
      assert.equal(
        polyline,
        encodePolyline(
          numbers(coordinates.map((pair) => pair[0])),
          numbers(coordinates.map((pair) => pair[1])),
        ),
      );
    }
  });

  test('calories', () => {
    for (const activity of activities) {
      const calories = activity.calories_data;
      const samples = numbers(calories?.calorie_samples?.map((sample) => sample.calories) ?? []);
      near(
        calories?.total_burned_calories,
        round(sum(samples), 2),
        `${activity.metadata.summary_id} calories`,
        1e-9,
      );
      near(
        calories?.net_activity_calories,
        round((calories?.total_burned_calories ?? 0) - (calories?.BMR_calories ?? 0), 2),
        'net',
        1e-9,
      );
      // Amounts are stamped at the start of their interval: the first at the start, none at the end.
      assert.equal(calories?.calorie_samples?.[0]?.timestamp, activity.metadata.start_time);
      assert.ok((calories?.calorie_samples?.at(-1)?.timestamp ?? '') < activity.metadata.end_time);
    }
  });
});

describe('sleep hypnograms add up to the durations', () => {
  test('per stage and in total', () => {
    const sleeps: Sleep[] = SEEDS.flatMap((seed) => records('sleep', seed, true, 60));
    assert.ok(
      sleeps.some((sleep) => sleep.metadata.is_nap),
      'the test data includes a nap',
    );
    for (const sleep of sleeps) {
      const durations = sleep.sleep_durations_data;
      const samples = durations?.hypnogram_samples ?? [];
      assert.ok(samples.length >= 3);
      assert.equal(samples[0]?.timestamp, sleep.metadata.start_time);
      const byLevel = new Map<number, number>();
      samples.forEach((sample, index) => {
        const end = samples[index + 1]?.timestamp ?? sleep.metadata.end_time;
        const span = seconds(sample.timestamp ?? '', end);
        assert.ok(span > 0, 'stages move forward in time');
        byLevel.set(sample.level ?? -1, (byLevel.get(sample.level ?? -1) ?? 0) + span);
      });
      const asleep = durations?.asleep;
      const awake = durations?.awake;
      assert.equal(byLevel.get(SleepLevel.DEEP) ?? 0, asleep?.duration_deep_sleep_state_seconds);
      assert.equal(byLevel.get(SleepLevel.LIGHT) ?? 0, asleep?.duration_light_sleep_state_seconds);
      assert.equal(byLevel.get(SleepLevel.REM) ?? 0, asleep?.duration_REM_sleep_state_seconds);
      assert.equal(byLevel.get(SleepLevel.AWAKE) ?? 0, awake?.duration_awake_state_seconds);
      assert.equal(
        (asleep?.duration_deep_sleep_state_seconds ?? 0) +
          (asleep?.duration_light_sleep_state_seconds ?? 0) +
          (asleep?.duration_REM_sleep_state_seconds ?? 0),
        asleep?.duration_asleep_state_seconds,
      );
      const inBed = seconds(sleep.metadata.start_time, sleep.metadata.end_time);
      assert.equal(durations?.other?.duration_in_bed_seconds, inBed);
      assert.equal(sum([...byLevel.values()]), inBed);
      assert.equal(
        (awake?.sleep_latency_seconds ?? 0) +
          (awake?.wake_up_latency_seconds ?? 0) +
          (awake?.duration_long_interruption_seconds ?? 0) +
          (awake?.duration_short_interruption_seconds ?? 0),
        awake?.duration_awake_state_seconds,
      );
      assert.equal(
        samples.filter((sample) => sample.level === SleepLevel.REM).length,
        asleep?.num_REM_events,
      );
      assert.equal(sleep.scores?.sleep, sleep.scores?.sleep_score);
    }
  });
});

describe("daily totals = the day's activities + background", () => {
  test('steps, distance, floors and calories follow the documented rule', () => {
    for (const seed of SEEDS) {
      for (const offset of [0, -300]) {
        for (let day = 0; day < 21; day++) {
          const date = addDays('2024-02-10', day);
          const [daily] = generateDay('daily', {
            seed,
            date,
            withSamples: true,
            timezoneOffsetMinutes: offset,
          }) as Daily[];
          const activities = generateDay('activity', {
            seed,
            date,
            timezoneOffsetMinutes: offset,
          }) as Activity[];
          const background = backgroundActivity(seed, date);
          const total = (pick: (activity: Activity) => number | null | undefined) =>
            sum(activities.map((activity) => pick(activity) ?? 0));
          const distance = daily?.distance_data;
          const label = `${seed} ${date} ${offset}`;
          assert.equal(
            distance?.steps,
            total((a) => a.distance_data?.summary?.steps) + background.steps,
            `${label} steps`,
          );
          assert.equal(
            distance?.distance_meters,
            round(total((a) => a.distance_data?.summary?.distance_meters) + background.distance_meters, 2),
            `${label} distance`,
          );
          assert.equal(
            distance?.floors_climbed,
            total((a) => a.distance_data?.summary?.floors_climbed) + background.floors_climbed,
            `${label} floors`,
          );
          const calories = daily?.calories_data;
          assert.equal(
            calories?.net_activity_calories,
            round(total((a) => a.calories_data?.net_activity_calories) + background.net_activity_calories, 2),
            `${label} calories`,
          );
          assert.equal(
            calories?.total_burned_calories,
            round((calories?.BMR_calories ?? 0) + (calories?.net_activity_calories ?? 0), 2),
            `${label} total`,
          );
          // The samples tell the same story as the totals.
          assert.equal(
            sum(numbers(distance?.detailed?.step_samples?.map((sample) => sample.steps) ?? [])),
            distance?.steps,
            `${label} step samples`,
          );
          assert.equal(
            distance?.detailed?.distance_samples?.at(-1)?.distance_meters,
            distance?.distance_meters,
            `${label} distance samples`,
          );
          assert.equal(
            distance?.detailed?.floors_climbed_samples?.at(-1)?.floors_climbed,
            distance?.floors_climbed,
            `${label} floor samples`,
          );
          assert.equal(distance?.detailed?.distance_samples?.at(-1)?.timestamp, daily?.metadata.end_time);
        }
      }
    }
  });

  test('day records span local midnight to midnight', () => {
    for (const type of ['daily', 'body', 'nutrition', 'menstruation'] as const) {
      for (const record of records(type, SEEDS[0] ?? '', false, 330)) {
        assert.match(record.metadata.start_time, /T00:00:00\.000000\+05:30$/);
        assert.equal(seconds(record.metadata.start_time, record.metadata.end_time), 86_400);
      }
    }
  });
});

describe('nutrition', () => {
  test('meal macros and micros add up to the day summary', () => {
    const days: Nutrition[] = SEEDS.flatMap((seed) => records('nutrition', seed));
    for (const day of days) {
      const meals = day.meals ?? [];
      assert.ok(meals.length >= 3);
      for (const key of macroKeys) {
        const expected = round(sum(meals.map((meal) => meal.macros[key] ?? 0)), 2);
        assert.equal(day.summary?.macros?.[key], expected, `${day.metadata.start_time} ${key}`);
      }
      for (const [key, value] of Object.entries(day.summary?.micros ?? {})) {
        const expected = round(
          sum(meals.map((meal) => (meal.micros as Record<string, number | null>)[key] ?? 0)),
          4,
        );
        assert.equal(value, expected, `${day.metadata.start_time} ${key}`);
      }
      for (const meal of meals) {
        const { protein_g, carbohydrates_g, fat_g, alcohol_g, calories } = meal.macros;
        assert.equal(
          calories,
          round(
            4 * (protein_g ?? 0) + 4 * (carbohydrates_g ?? 0) + 9 * (fat_g ?? 0) + 7 * (alcohol_g ?? 0),
            2,
          ),
        );
      }
      const drinks = day.drink_samples ?? [];
      assert.equal(day.summary?.drink_ml, sum(numbers(drinks.map((drink) => drink.drink_volume))));
      assert.equal(
        day.summary?.water_ml,
        sum(
          numbers(drinks.filter((drink) => drink.drink_name === 'Water').map((drink) => drink.drink_volume)),
        ),
      );
    }
  });
});

describe('cycle, hormones and body', () => {
  const seed = SEEDS[0] ?? '';
  const options = { seed, startDate: '2023-01-01', endDate: '2023-07-01', withSamples: true };
  const menstruation = generate('menstruation', options);
  const hormones = generate('hormone', options);

  test('cycles of about four weeks, counted day by day', () => {
    const lengths: number[] = [];
    menstruation.forEach((record, index) => {
      const data = record.menstruation_data;
      const previous = menstruation[index - 1]?.menstruation_data;
      if (!previous) return;
      if (data?.day_in_cycle === 1) {
        assert.equal(previous.day_in_cycle, previous.cycle_length_days, 'a cycle ends on its last day');
        lengths.push(previous.day_in_cycle ?? 0);
      } else assert.equal(data?.day_in_cycle, (previous.day_in_cycle ?? 0) + 1);
      assert.equal(
        (data?.menstruation_flow?.length ?? 0) > 0,
        (data?.day_in_cycle ?? 0) <= (data?.period_length_days ?? 0),
      );
    });
    assert.ok(lengths.length >= 5, `cycles seen: ${lengths}`);
    assert.ok(
      lengths.every((length) => length >= 22 && length <= 36),
      `cycle lengths ${lengths}`,
    );
    assert.ok(new Set(lengths).size > 1, 'cycle lengths vary');
  });

  test('LH surges at ovulation and PdG rises after it', () => {
    let surges = 0;
    menstruation.forEach((record, index) => {
      const data = record.menstruation_data;
      const lh = hormones[index]?.lh_mIU_per_ml ?? 0;
      const pdg = hormones[index]?.pdg_ug_per_ml ?? 0;
      const fromOvulation =
        (Date.parse(record.metadata.start_time.slice(0, 10)) - Date.parse(data?.ovulation_day ?? '')) /
        86_400_000;
      if (fromOvulation === -1) {
        assert.ok(lh > 20, `LH the day before ovulation: ${lh}`);
        surges++;
      }
      if (Math.abs(fromOvulation) > 3) assert.ok(lh < 10, `LH away from ovulation: ${lh}`);
      if (fromOvulation >= 4 && fromOvulation <= 9) assert.ok(pdg > 5, `PdG mid-luteal: ${pdg}`);
      if (fromOvulation < -1) assert.ok(pdg < 1.5, `PdG before ovulation: ${pdg}`);
    });
    assert.ok(surges >= 4);
  });

  test('body: weight trends smoothly, averages match samples, glucose summary matches readings', () => {
    const bodies = generate('body', options);
    bodies.forEach((body, index) => {
      const weight = body.measurements_data?.measurements?.[0]?.weight_kg ?? 0;
      const previous = bodies[index - 1]?.measurements_data?.measurements?.[0]?.weight_kg;
      if (previous !== undefined && previous !== null)
        assert.ok(Math.abs(weight - previous) < 1.5, `weight jump ${previous} -> ${weight}`);
      const pressure = body.blood_pressure_data;
      const systolic = numbers(pressure?.blood_pressure_samples?.map((sample) => sample.systolic_bp) ?? []);
      assert.equal(pressure?.day_avg_systolic_bp, round(mean(systolic), 2));
      const glucose = numbers(
        body.glucose_data?.detailed_blood_glucose_samples?.map((sample) => sample.blood_glucose_mg_per_dL) ??
          [],
      );
      assert.equal(glucose.length, 288);
      assert.equal(body.glucose_data?.day_avg_blood_glucose_mg_per_dL, round(mean(glucose), 2));
      assert.equal(body.glucose_data?.blood_glucose_samples?.length, 96);
    });
  });
});

describe('planned workouts', () => {
  test('unique ids, planned on their own day, steps present', () => {
    const planned = generate('plannedWorkout', {
      seed: SEEDS[1] ?? '',
      startDate: '2024-01-01',
      endDate: '2024-03-01',
      timezoneOffsetMinutes: -300,
    });
    assert.ok(planned.length > 10);
    const ids = planned.map((workout) => dataTypes.plannedWorkout.identityKey(workout));
    assert.equal(new Set(ids).size, planned.length);
    for (const workout of planned) {
      assert.match(workout.metadata?.planned_date ?? '', /T00:00:00\.000000-05:00$/);
      assert.ok((workout.steps?.length ?? 0) >= 3 || workout.metadata?.type === 'STRENGTH_TRAINING');
      assert.ok((workout.metadata?.estimated_duration_seconds ?? 0) > 0);
    }
  });
});

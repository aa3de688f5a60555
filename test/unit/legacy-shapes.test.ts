// The older contract's field shapes are brought to the vendor's current schema before a record is
// validated and stored (issue 14, item 5: what older clients and SDKs still send is accepted).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { prepareRecord } from '../../src/features/data/records.ts';
import { MenstruationInterval, NutritionUnits } from '../../src/model/enums.ts';
import {
  toContributorMap,
  toInteger,
  toNutritionUnitCode,
  toPhaseCode,
  upgradeRecord,
} from '../../src/model/legacy-shapes.ts';

const day = { start_time: '2024-03-01T00:00:00.000000+00:00', end_time: '2024-03-02T00:00:00.000000+00:00' };

describe('older field shapes -> the current schema', () => {
  test('each conversion, and what cannot be converted becomes null', () => {
    assert.equal(toInteger('33'), 33);
    assert.equal(toInteger('21.4'), 21);
    assert.equal(toInteger(40), 40);
    assert.equal(toInteger('forty'), null);
    assert.equal(toInteger(''), null);
    assert.equal(toInteger(null), null);
    assert.equal(toInteger(undefined), undefined);

    assert.equal(toPhaseCode('luteal'), MenstruationInterval.LUTEAL);
    assert.equal(toPhaseCode('menstrual'), MenstruationInterval.PERIOD);
    assert.equal(toPhaseCode('fertile'), MenstruationInterval.FERTILE_WINDOW);
    assert.equal(toPhaseCode('3'), 3);
    assert.equal(toPhaseCode(9), 9);
    assert.equal(toPhaseCode(10), null);
    assert.equal(toPhaseCode('spring'), null);

    assert.equal(toNutritionUnitCode('ml'), NutritionUnits.MILLILITER);
    assert.equal(toNutritionUnitCode('fl oz'), NutritionUnits.FLUID_OUNCE);
    assert.equal(toNutritionUnitCode('Gram'), NutritionUnits.GRAM);
    assert.equal(toNutritionUnitCode(12), 12);
    assert.equal(toNutritionUnitCode(13), null);
    assert.equal(toNutritionUnitCode('bucket'), null);

    assert.deepEqual(
      toContributorMap([
        { contributor_name: 'deep_sleep', contributor_score: 68 },
        { contributor_name: 'latency', contributor_score: 90 },
        { contributor_name: 'broken' },
      ]),
      { deep_sleep: 68, latency: 90 },
    );
    assert.deepEqual(toContributorMap({ a: 1, b: null }), { a: 1 });
  });

  test('records in the older shape are upgraded; current records come back as the same object', () => {
    const menstruation = {
      metadata: day,
      menstruation_data: { current_phase: 'luteal', cycle_length_days: '33', is_predicted_cycle: 'false' },
    };
    assert.deepEqual(upgradeRecord('menstruation', menstruation).menstruation_data, {
      current_phase: 5,
      cycle_length_days: 33,
      is_predicted_cycle: false,
    });
    assert.equal(menstruation.menstruation_data.current_phase, 'luteal', 'the input is not mutated');

    const body = { metadata: day, measurements_data: { measurements: [{ estimated_fitness_age: '21' }] } };
    assert.equal(upgradeRecord('body', body).measurements_data.measurements[0]!.estimated_fitness_age, 21);

    const nutrition = { metadata: day, drink_samples: [{ drink_volume: 250, drink_unit: 'ml' }] };
    assert.equal(upgradeRecord('nutrition', nutrition).drink_samples[0]!.drink_unit, 8);

    const daily = {
      metadata: { ...day, upload_type: 1 },
      data_enrichment: {
        stress_contributors: [{ contributor_name: 'average_stress', contributor_score: 31 }],
      },
    };
    assert.deepEqual(upgradeRecord('daily', daily).data_enrichment.stress_contributors, {
      average_stress: 31,
    });

    const current = { metadata: day, menstruation_data: { current_phase: 2, cycle_length_days: 28 } };
    assert.equal(upgradeRecord('menstruation', current), current);
  });

  test('the store takes an older-shaped record and keeps the current shape', () => {
    const prepared = prepareRecord(
      'menstruation',
      { metadata: day, menstruation_data: { current_phase: 'ovulation', is_predicted_cycle: 'true' } },
      new Date('2024-03-05T00:00:00Z'),
    );
    assert.ok(prepared.ok);
    assert.deepEqual(JSON.parse(prepared.value.summary).menstruation_data, {
      current_phase: MenstruationInterval.OVULATION,
      is_predicted_cycle: true,
    });
  });
});

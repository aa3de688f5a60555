// A rewrite of derived fields writes the summary alone (features/data/record-rewrites.ts): the
// splices that put the samples back must move with the text the edit changed, or the rewrite
// must fall back to the whole record when an emptied sample array lies where the texts differ.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dataTypes } from '../../src/model/index.ts';
import { resplice } from '../../src/features/data/record-rewrites.ts';
import { mergeSamples, splitSamples } from '../../src/features/data/records.ts';
import { generate } from '../../src/providers/sandbox/generate.ts';

type Json = Record<string, unknown>;

describe('a summary rewritten alone', () => {
  test('daily and sleep records: the samples go back where they were, around new scores of any length', () => {
    for (const type of ['daily', 'sleep'] as const) {
      const records = generate(type, {
        seed: 'resplice',
        startDate: '2024-01-01',
        endDate: '2024-01-10',
        withSamples: true,
      }) as Json[];
      let spliced = 0;
      for (const record of records) {
        const split = splitSamples(record, dataTypes[type].samplePaths);
        if (!split.splices) continue;
        spliced++;
        // Longer and shorter than before, and a field the record did not have (appended last).
        for (const enrichment of [{ tributary: { filled: ['x'], score: 12.5, long: 'y'.repeat(500) } }, {}]) {
          const edit = (whole: Json) => ({ ...whole, data_enrichment: enrichment, added_last: [1, 2] });
          const after = JSON.stringify(edit(JSON.parse(split.summary) as Json));
          const splices = resplice(split.summary, after, split.splices);
          assert.ok(splices, type);
          assert.equal(mergeSamples(after, split.samples, splices), JSON.stringify(edit(record)), type);
        }
      }
      assert.ok(spliced > 0, `${type} records with samples`);
    }
  });

  test('an edit that touches an emptied sample array cannot be spliced: the whole record is rewritten', () => {
    const record = { a: 1, list: { samples: [1, 2, 3] }, b: 2 };
    const split = splitSamples(record, ['list.samples']);
    const after = JSON.stringify({ a: 1, list: { samples: [9] }, b: 2 });
    assert.equal(resplice(split.summary, after, split.splices), null);
    // Untouched arrays before and after the edit move with it.
    const edited = JSON.stringify({ a: 100, list: { samples: [] }, b: 2 });
    assert.deepEqual(resplice(split.summary, edited, split.splices), [
      split.splices![0]! + 2,
      split.splices![1]!,
      split.splices![2]!,
    ]);
  });
});

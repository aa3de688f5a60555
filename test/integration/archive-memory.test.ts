// Issue 40, row 8: the user archive's memory grew with the archive (pages of 500 rows, each page
// one string, whatever the rows weighed). Now each file's stream is made when the archive reaches
// it and reads pages sized by bytes only as the socket takes them. The run
// (test/helpers/archive-run.ts) is its own process under a heap limit, so a regression fails this
// test rather than the machine: a user with RECORDS second-by-second workouts, archived through a
// real socket, every record in the manifest. On this file's store (PGlite, or PostgreSQL).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runUnderHeapLimit } from '../helpers/heap-limited-run.ts';

const RUN = new URL('../helpers/archive-run.ts', import.meta.url).pathname;
const HEAP_MB = 144;
const RECORDS = 250;

test(`an archive of ${RECORDS} hour-long workouts streams within a ${HEAP_MB} MB heap`, async () => {
  const { code, stdout, stderr } = await runUnderHeapLimit(RUN, HEAP_MB, [String(RECORDS), '3600']);
  assert.doesNotMatch(stderr, /heap out of memory/, 'the archive ran out of heap');
  assert.equal(code, 0, `the run failed: ${stderr.slice(-2000)}`);
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    records: number;
    archivedActivities: number | null;
  };
  assert.ok(result.records > RECORDS, `records stored: ${result.records}`);
  assert.equal(result.archivedActivities, result.records, 'every stored activity is in the archive');
});

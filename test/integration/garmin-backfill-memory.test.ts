// Issue 40, row 6: a Garmin backfill answered at a real watch's volume (1 s activity samples,
// 15 s daily heart rate, all-day epochs, 3-minute stress) used to end the server with "JavaScript
// heap out of memory" while it pulled the callbacks: every summary of a callback was parsed, kept
// and normalized at once. Now the pulled lists are read item by item, spooled by day and
// normalized a day at a time. The run (test/helpers/garmin-backfill-run.ts) is its own process
// under a heap limit, so a regression fails this test rather than the machine: the service, the
// project's Garmin fake (in a thread of its own) and a webhook destination, over real sockets,
// on a test database of its own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runUnderHeapLimit } from '../helpers/heap-limited-run.ts';

const RUN = new URL('../helpers/garmin-backfill-run.ts', import.meta.url).pathname;
/** Old space for the service: the server died near 356 MB on this backfill. */
const HEAP_MB = 192;
const DAYS = 30;

test(`a ${DAYS}-day Garmin backfill at real volume completes within a ${HEAP_MB} MB heap`, async () => {
  const { code, stdout, stderr } = await runUnderHeapLimit(RUN, HEAP_MB, [String(DAYS), '1']);
  assert.doesNotMatch(stderr, /heap out of memory/, 'the service ran out of heap');
  assert.equal(code, 0, `the run failed: ${stderr.slice(-2000)}`);
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    stored: Record<string, number>[];
    expected: Record<string, number>;
    rawPayloads: number;
  };
  const [stored] = result.stored;
  for (const [type, count] of Object.entries(result.expected))
    assert.equal(stored?.[type], count, `${type}: every day the fake holds is stored, once`);
  assert.ok((stored?.body ?? 0) > 0, 'weigh-ins stored');
  assert.ok(result.rawPayloads > 0, 'raw payloads kept, a day at a time');
});

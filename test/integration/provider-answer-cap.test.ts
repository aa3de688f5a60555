// The answer cap on every provider read (PROVIDER_HTTP_MAX_ANSWER_MB, issue 40 item 3): a server
// whose answers never end, read by the provider HTTP client and the OAuth client in a child under
// a heap limit (test/helpers/oversized-answer-run.ts), so a regression fails this test instead of
// the machine. Each read fails on its own, naming the provider and the limit; the next request
// is answered; memory stays near the cap.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runUnderHeapLimit } from '../helpers/heap-limited-run.ts';

const RUN = new URL('../helpers/oversized-answer-run.ts', import.meta.url).pathname;

type Outcome = { error: string; message: string } | 'ok';

test('an endless provider answer fails its own request, naming the provider and the limit', async () => {
  const { code, stdout, stderr } = await runUnderHeapLimit(RUN, 96, ['1']);
  assert.equal(code, 0, `the run ended with ${code}: ${stderr.slice(-2000)}`);
  const results = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, Outcome | number>;
  for (const read of ['json', 'declared', 'file', 'error', 'items', 'wholeList']) {
    const outcome = results[read] as Outcome;
    assert.notEqual(outcome, 'ok', `${read}: an endless answer cannot have been read`);
    if (outcome === 'ok') continue;
    assert.equal(outcome.error, 'ProviderDataError', read);
    assert.match(outcome.message, /^OURA \/v2\/usercollection\//, `${read} names the provider`);
    assert.match(outcome.message, /over 1 MB|more than 1 MB/, `${read} names the limit`);
    assert.match(outcome.message, /PROVIDER_HTTP_MAX_ANSWER_MB/, `${read} names the setting`);
  }
  for (const read of ['exchange', 'refresh']) {
    const outcome = results[read] as Outcome;
    assert.notEqual(outcome, 'ok', read);
    if (outcome !== 'ok')
      assert.match(outcome.message, /more than 1 MB \(PROVIDER_HTTP_MAX_ANSWER_MB\)/, read);
  }
  assert.equal(results.afterwards, 'ok', 'the next request is answered');
  // Nine endless answers read 1 MB each at most: far below what an uncapped read takes.
  assert.ok((results.peakRssMb as number) < 400, `peak RSS ${results.peakRssMb} MB`);
});

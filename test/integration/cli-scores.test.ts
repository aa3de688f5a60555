// `tributary scores recompute` (docs/scores.md) through a real CLI process: usage errors exit 2,
// an unknown developer 1, and a developer's users are listed with what was rewritten. What a
// recomputation rewrites is tested in-process (scores.test.ts: recomputeRange).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ChildEnvironment, childEnvironment, runCli } from '../helpers/child-service.ts';

describe('tributary scores recompute', () => {
  let environment: ChildEnvironment;
  before(async () => {
    environment = await childEnvironment();
  });
  after(async () => {
    await environment?.cleanup();
  });

  test('usage, refusals, and a run over a developer’s users', async () => {
    const { env } = environment;
    const missing = await runCli(['scores', 'recompute'], env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^tributary: --dev-id is required\nusage:\n {2}tributary scores recompute/);
    const badDate = await runCli(['scores', 'recompute', '--dev-id', 'x', '--from', '2025-13-01'], env);
    assert.equal(badDate.code, 2);
    assert.match(badDate.stderr, /--from must be YYYY-MM-DD/);
    const unknown = await runCli(['scores', 'recompute', '--dev-id', 'nobody-00000000'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no developer with dev-id "nobody-00000000"/);

    const created = await runCli(
      ['developers', 'create', '--name', 'Scores', '--environment', 'sandbox', '--json'],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const devId = (JSON.parse(created.stdout) as { dev_id: string }).dev_id;
    const connected = await runCli(['sandbox', 'connect', '--dev-id', devId, '--json'], env);
    assert.equal(connected.code, 0, connected.stderr);
    const userId = (JSON.parse(connected.stdout) as { user_id: string }).user_id;

    const run = await runCli(
      ['scores', 'recompute', '--dev-id', devId, '--from', '2025-01-01', '--to', '2025-03-31', '--json'],
      env,
    );
    assert.equal(run.code, 0, run.stderr);
    // Nothing stored yet for this user: nothing to rewrite.
    assert.deepEqual(JSON.parse(run.stdout), {
      from: '2025-01-01',
      to: '2025-03-31',
      users: [{ user_id: userId, rewritten: 0 }],
    });
  });
});

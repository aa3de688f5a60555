// A later start writes no queue and no schedule that is already stored as it would be written: the
// comparisons that decide it (issue 28, start-up).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { queueNeedsUpdate } from '../../src/jobs/queue.ts';
import { scheduleUnchanged } from '../../src/runtime/workers/recurring.ts';

describe('queue options against the stored queue', () => {
  // A queue row as pg-boss's getQueues reads it (columns named as the options are).
  const stored = {
    name: 'webhooks.deliver',
    policy: 'standard',
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 300,
    expireInSeconds: 900,
    heartbeatSeconds: 10,
    deleteAfterSeconds: 3600,
    notify: true,
    deadLetter: null,
    queuedCount: 7,
  };

  it('needs no update when every given option equals its stored value', () => {
    assert.equal(
      queueNeedsUpdate(stored, { retryLimit: 10, retryDelay: 5, retryBackoff: true, notify: true }),
      false,
    );
    // An option left out is one updateQueue keeps, so it cannot make a difference.
    assert.equal(queueNeedsUpdate(stored, { retryLimit: 10, retryDelayMax: undefined }), false);
  });

  it('needs an update when one given option differs or is not stored yet', () => {
    assert.equal(queueNeedsUpdate(stored, { retryLimit: 11 }), true);
    assert.equal(queueNeedsUpdate(stored, { notify: true, deadLetter: 'webhooks.deliver.given-up' }), true);
    assert.equal(queueNeedsUpdate({ ...stored, heartbeatSeconds: null }, { heartbeatSeconds: 10 }), true);
  });
});

describe('a recurring job against its stored schedule', () => {
  const row = {
    name: 'data.prune',
    key: '',
    cron: '0 * * * *',
    timezone: 'UTC',
    data: {},
    options: { tz: 'UTC' },
  };

  it('is unchanged when expression, zone, data and options are what registering writes', () => {
    assert.equal(scheduleUnchanged(row, '0 * * * *'), true);
  });

  it('is written again when anything differs, or when nothing is stored', () => {
    assert.equal(scheduleUnchanged(undefined, '0 * * * *'), false);
    assert.equal(scheduleUnchanged(row, '*/5 * * * *'), false);
    assert.equal(scheduleUnchanged({ ...row, timezone: 'Europe/Berlin' }, '0 * * * *'), false);
    assert.equal(scheduleUnchanged({ ...row, data: { a: 1 } }, '0 * * * *'), false);
    assert.equal(scheduleUnchanged({ ...row, options: { tz: 'UTC', retryLimit: 1 } }, '0 * * * *'), false);
  });
});

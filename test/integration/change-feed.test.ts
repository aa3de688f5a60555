// One store listens on every topic through one connection (store/change-feed.ts): a channel added
// while it is up is listened on there, a second listener of a channel is live at once, a notice
// reaches every listener of its channel, and when the connection is lost every channel goes
// down and comes back, listened on again, on the next connection.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { CHANGE_FEED_APPLICATION_NAME, listenOnPostgres } from '../../src/store/change-feed.ts';
import { startTestService, type TestService } from '../helpers/app.ts';
import { until } from '../helpers/until.ts';

let service: TestService;
before(async () => {
  service = await startTestService({ work: false });
});
after(() => service.close());

/** A listener's handlers that keep what they heard, and how many times it went down. */
function recorder() {
  const state = { live: false, downs: 0, heard: [] as string[] };
  const handlers = {
    changed: (payload: string) => state.heard.push(payload),
    live: (up: boolean) => {
      if (state.live && !up) state.downs++;
      state.live = up;
    },
  };
  return { state, handlers };
}

const feedSessions = async () =>
  (
    await sql<{ pid: number }>`
      select pid from pg_stat_activity
       where datname = current_database() and application_name = ${CHANGE_FEED_APPLICATION_NAME}`.execute(
      service.ctx.db,
    )
  ).rows.map((row) => row.pid);

const notify = (channel: string, payload: string) =>
  sql`select pg_notify(${channel}, ${payload})`.execute(service.ctx.db);

test('every channel on one connection, listened on again after it is lost', async () => {
  const others = new Set(await feedSessions());
  const feed = listenOnPostgres({ connectionString: service.store.postgres.connectionString });
  try {
    const first = recorder();
    const second = recorder();
    const again = recorder();
    feed.listen('feed_test_one', first.handlers);
    await until('the first channel to be live', () => first.state.live);
    feed.listen('feed_test_two', second.handlers);
    await until('a channel added while up to be live', () => second.state.live);
    feed.listen('feed_test_one', again.handlers);
    assert.equal(again.state.live, true, 'a channel already listened on is live at once');

    const mine = (await feedSessions()).filter((pid) => !others.has(pid));
    assert.equal(mine.length, 1, 'one connection for both channels');

    await notify('feed_test_one', 'a');
    await notify('feed_test_two', 'b');
    await until(
      'both channels heard',
      () => first.state.heard.length === 1 && second.state.heard.length === 1,
    );
    assert.deepEqual([first.state.heard, again.state.heard, second.state.heard], [['a'], ['a'], ['b']]);

    await sql`select pg_terminate_backend(${mine[0]!})`.execute(service.ctx.db);
    // Down (counted: the next connection may be up again before a look would see it), then up.
    await until('the loss to be noticed', () => first.state.downs === 1 && second.state.downs === 1);
    await until('every channel live again', () => first.state.live && second.state.live && again.state.live);
    await notify('feed_test_one', 'c');
    await notify('feed_test_two', 'd');
    await until(
      'both channels heard again',
      () => first.state.heard.length === 2 && second.state.heard.length === 2,
    );
    assert.deepEqual(
      [first.state.heard, second.state.heard],
      [
        ['a', 'c'],
        ['b', 'd'],
      ],
    );
    // The ended session leaves pg_stat_activity as its backend exits.
    await until('one connection again, a new one', async () => {
      const now = (await feedSessions()).filter((pid) => !others.has(pid));
      return now.length === 1 && now[0] !== mine[0];
    });
  } finally {
    await feed.close();
  }
});

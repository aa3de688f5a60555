// Start-up migrations when the database blinks: a run cut short by a lost connection is tried
// again (Kysely runs it in one transaction, so nothing of it was applied), and any other failure
// is reported at once with the failing migration's name. The lost connection is planted by a
// Kysely plugin that fails chosen queries the way node-postgres reports a dropped session.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';
import { migrateToLatest, pendingMigrations } from '../../src/store/migrate.ts';
import { migrations } from '../../src/store/migrations/index.ts';
import { type MigrationStore, openMigrationStore } from '../helpers/migration-store.ts';

/** Fails the `failAt`-th query (1-based, counted over the plugin's life) with `error()`. */
function failingQuery(failAt: number[], error: () => Error): KyselyPlugin & { queries: number } {
  const plugin = {
    queries: 0,
    transformQuery(args: PluginTransformQueryArgs) {
      plugin.queries += 1;
      if (failAt.includes(plugin.queries)) throw error();
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs) {
      return args.result;
    },
  };
  return plugin;
}

const connectionReset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

describe('start-up migrations and a lost connection', () => {
  let scratch: MigrationStore;
  before(async () => {
    scratch = await openMigrationStore();
  });
  after(() => scratch.close());
  const schema = () => scratch.store.postgres?.schema;

  test('a failure that is not a lost connection is thrown at once, nothing applied', async () => {
    // Only the eighth query fails: a second attempt would succeed, so the rejection shows there was none.
    const plugin = failingQuery([8], () => new Error('relation "nowhere" does not exist'));
    await assert.rejects(
      migrateToLatest(scratch.store.db.withPlugin(plugin), schema(), { retryFirstMs: 1 }),
      /migration .* failed: relation "nowhere" does not exist/,
    );
    const queriesOfOneRun = plugin.queries;
    assert.ok(queriesOfOneRun >= 8, 'the planted failure was reached');
    assert.deepEqual(
      await pendingMigrations(scratch.store.db, schema()),
      Object.keys(migrations),
      'the failed run was rolled back whole',
    );
  });

  test('a run cut short twice by a lost connection is tried again and applies every migration', async () => {
    // The first attempt fails mid-run, the second at once, the third completes.
    const plugin = failingQuery([12, 40], connectionReset);
    const applied = await migrateToLatest(scratch.store.db.withPlugin(plugin), schema(), { retryFirstMs: 1 });
    assert.deepEqual(applied, Object.keys(migrations));
    assert.deepEqual(await pendingMigrations(scratch.store.db, schema()), []);
  });

  test('after the last attempt the lost connection is reported, naming it', async () => {
    const fresh = await openMigrationStore();
    const everyQuery = Array.from({ length: 10_000 }, (_, index) => index + 1);
    const attempt = async (attempts: number) => {
      const plugin = failingQuery(everyQuery, connectionReset);
      await assert.rejects(
        migrateToLatest(fresh.store.db.withPlugin(plugin), fresh.store.postgres?.schema, {
          attempts,
          retryFirstMs: 1,
        }),
        /ECONNRESET/,
      );
      return plugin.queries;
    };
    try {
      const queriesOfOneAttempt = await attempt(1);
      assert.equal(await attempt(3), 3 * queriesOfOneAttempt, 'three attempts, then the error');
    } finally {
      await fresh.close();
    }
  });
});

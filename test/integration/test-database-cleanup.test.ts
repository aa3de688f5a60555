import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import {
  databaseSkipReason,
  dropRunDatabases,
  dropStaleDatabases,
  newRunId,
  testDatabaseUrl,
  withClient,
} from '../helpers/database.ts';

/**
 * The tests' clean-up of what earlier runs left on the shared server. A DROP that never finished
 * (its process killed) leaves a database PostgreSQL marks invalid (`datconnlimit = -2`), on which
 * ALTER DATABASE is FATAL: that ended the clean-up's connection, and every test file starting
 * after it failed with "Connection terminated unexpectedly". It is dropped like the rest.
 */
const skip = await databaseSkipReason();

test(
  'a killed run’s databases, one left invalid by an unfinished DROP, are all dropped',
  { skip },
  async (t) => {
    const server = await testDatabaseUrl();
    const superuser = await withClient(
      server,
      async (client) =>
        (
          await client.query<{ su: boolean }>(
            'SELECT rolsuper AS su FROM pg_roles WHERE rolname = current_user',
          )
        ).rows[0]?.su,
    );
    if (!superuser) return t.skip('marking a database invalid takes a superuser');
    // A run id as a killed run left it: this host, a process that has exited.
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const run = newRunId().replace(/^(tt_[0-9a-f]{4})_[0-9a-z]+_/, `$1_${dead.toString(36)}_`);
    const invalid = `${run}_invalid`;
    const template = `${run}_template`;
    await withClient(server, async (client) => {
      await client.query(`CREATE DATABASE ${invalid}`);
      await client.query(`CREATE DATABASE ${template} IS_TEMPLATE true`);
      // What PostgreSQL writes when a DROP DATABASE is interrupted (DATCONNLIMIT_INVALID_DB).
      await client.query('UPDATE pg_database SET datconnlimit = -2 WHERE datname = $1', [invalid]);
    });
    t.after(() => dropRunDatabases(server, run).catch(() => undefined));

    const dropped = await dropStaleDatabases(server);
    assert.ok(dropped.includes(invalid) && dropped.includes(template), dropped.join(', '));
    const left = await withClient(
      server,
      async (client) =>
        (await client.query('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${run}%`])).rows,
    );
    assert.deepEqual(left, []);
  },
);

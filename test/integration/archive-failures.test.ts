// The user archive (GET /v2/users/{id}/export) when what it reads fails part way, through a real
// socket: a stored row that cannot be read (both stores), and the database connection cut while
// the archive waits on its next page (PostgreSQL: the backend terminated). Either way that
// response ends cut short, the process lives on, the failure is logged, and the next request is
// answered in full. Before, an archive entry's stream failed with no 'error' listener and the
// process exited (issue 40, row 7).
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { sql } from 'kysely';
import { EXPORTED_TYPES } from '../../src/features/fhir-export/map-records.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectSandboxUser } from '../helpers/connections.ts';
import { until } from '../helpers/until.ts';

const FROM = '2025-03-01';
const TO = '2025-03-08';

/** The archive read to its end: its status and whether its body arrived whole. */
async function readArchive(url: string, headers: Record<string, string>) {
  const response = await fetch(url, { headers });
  let bytes = 0;
  try {
    for await (const chunk of response.body!) bytes += (chunk as Uint8Array).byteLength;
    return { status: response.status, whole: true, bytes };
  } catch {
    return { status: response.status, whole: false, bytes };
  }
}

/** A whole ZIP ends with its end-of-central-directory record; a cut one does not. */
async function archiveEnds(url: string, headers: Record<string, string>) {
  const response = await fetch(url, { headers });
  assert.equal(response.status, 200);
  const body = Buffer.from(await response.arrayBuffer());
  return body.subarray(-22, -18).equals(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
}

describe('the user archive when its reads fail part way', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let userId: string;
  let origin: string;
  const logged: string[] = [];

  before(async () => {
    service = await startTestService({
      env: { SANDBOX_ARRIVAL_MINUTES: 'off', LOG_LEVEL: 'warn' },
      logTo: { write: (line: string) => void logged.push(line) },
    });
    developer = await createDeveloper(service.ctx);
    ({ userId } = await connectSandboxUser(service.app, developer));
    for (const type of EXPORTED_TYPES) {
      const response = await service.app.inject({
        method: 'GET',
        url: `/v3/connections/${userId}/${type}?start_date=${FROM}&end_date=${TO}`,
        headers: developer.headers,
      });
      assert.equal(response.statusCode, 200, response.body);
    }
    await service.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await service?.close();
  });

  const exportUrl = () => `${origin}/v2/users/${userId}/export`;

  test('a stored event that cannot be read ends that response; the process answers the next', async () => {
    const event = await service.ctx.db
      .selectFrom('events')
      .select(['id', 'body'])
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    await service.ctx.db
      .updateTable('events')
      .set({ body: '{"cut short' })
      .where('id', '=', event.id)
      .execute();
    try {
      const cut = await readArchive(exportUrl(), developer.headers);
      assert.ok(
        cut.status !== 200 || !cut.whole,
        `the archive must not arrive whole: ${JSON.stringify(cut)}`,
      );
      await until('the failure logged', async () => logged.some((line) => /JSON/.test(line)));
    } finally {
      await service.ctx.db
        .updateTable('events')
        .set({ body: event.body })
        .where('id', '=', event.id)
        .execute();
    }
    assert.ok(await archiveEnds(exportUrl(), developer.headers), 'the next archive is whole');
  });

  test('the database connection cut while the archive waits on a page ends that response only', async () => {
    const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(service.ctx.db))
      .rows[0]!.schema;
    const admin = new pg.Client({ connectionString: service.config.databaseUrl });
    await admin.connect();
    try {
      // The records are locked away: the archive sends user.json, then waits on its first page.
      await admin.query('BEGIN');
      await admin.query(`LOCK TABLE "${schema}".data_records IN ACCESS EXCLUSIVE MODE`);
      const reading = readArchive(exportUrl(), developer.headers);
      const waiting = async () =>
        (
          await admin.query<{ pid: number }>(
            'SELECT pid FROM pg_locks WHERE NOT granted AND relation = $1::regclass',
            [`"${schema}".data_records`],
          )
        ).rows.map((row) => row.pid);
      await until('the archive waiting on its page', async () => (await waiting()).length > 0);
      // Only this archive's own connection: it is the one waiting on this schema's table.
      for (const pid of await waiting()) await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await admin.query('ROLLBACK');
      const cut = await reading;
      assert.ok(
        cut.status !== 200 || !cut.whole,
        `the archive must not arrive whole: ${JSON.stringify(cut)}`,
      );
    } finally {
      await admin.end();
    }
    assert.ok(
      await archiveEnds(exportUrl(), developer.headers),
      'the pool recovers: the next archive is whole',
    );
  });
});

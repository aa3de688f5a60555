// The sample upsert (features/mobile/samples-repo.ts `upsertSamples`) marks exactly the days whose content
// changed: a new sample's day, both days of a sample that moved, none for a sample stored again
// unchanged. Its old-day lookup probes only the rows the upsert replaced (not the ones it
// inserted), so a moved sample is the case that tells a missed probe. An import's batch stores its
// checkpoint in the same statement.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { findImport, insertImport } from '../../src/features/mobile/imports-repo.ts';
import { upsertSamples } from '../../src/features/mobile/samples-repo.ts';
import { ImportedDays } from '../../src/features/mobile/imported-days.ts';
import { encodeSampleRows } from '../../src/features/mobile/sample-rows.ts';
import { createDeveloper, startTestService, type TestService } from '../helpers/app.ts';
import { sdkConnect } from '../helpers/mobile.ts';

const rowsOf = (samples: { id: string; day: string; body: string }[]) =>
  encodeSampleRows({
    ids: samples.map((sample) => sample.id),
    kinds: samples.map(() => 'steps'),
    days: samples.map((sample) => sample.day),
    // Milliseconds since the epoch, as sample-rows.ts writes them.
    starts: samples.map((sample) => String(Date.parse(`${sample.day}T08:00:00.000Z`))),
    ends: samples.map((sample) => String(Date.parse(`${sample.day}T08:10:00.000Z`))),
    bodies: samples.map((sample) => sample.body),
  });

describe('mobile sample upsert: the days it marks', () => {
  let service: TestService;
  let userId: string;
  let developerId: string;

  before(async () => {
    service = await startTestService();
    const developer = await createDeveloper(service.ctx);
    developerId = developer.devId;
    ({ userId } = await sdkConnect(service.app, developer, 'APPLE', 'upsert-days'));
  });
  after(async () => {
    await service?.close();
  });

  const dirty = async () =>
    (
      await service.ctx.db
        .selectFrom('mobile_dirty_days')
        .select((eb) => eb.cast<string>('local_day', 'text').as('day'))
        .where('user_id', '=', userId)
        .orderBy('local_day')
        .execute()
    ).map((row) => row.day);
  const clear = () => service.ctx.db.deleteFrom('mobile_dirty_days').where('user_id', '=', userId).execute();
  const upsert = (samples: { id: string; day: string; body: string }[]) =>
    service.ctx.db.transaction().execute(async (trx) => upsertSamples(trx, userId, rowsOf(samples)));

  test('new samples mark their days; the same samples again mark none', async () => {
    const samples = [
      { id: 'a', day: '2026-11-01', body: '{"v":1}' },
      { id: 'b', day: '2026-11-02', body: '{"v":2}' },
    ];
    assert.deepEqual([...(await upsert(samples))].sort(), ['2026-11-01', '2026-11-02']);
    assert.deepEqual(await dirty(), ['2026-11-01', '2026-11-02']);
    await clear();
    assert.deepEqual([...(await upsert(samples))], []);
    assert.deepEqual(await dirty(), []);
  });

  test('a sample that moved marks the day it left and the day it joined, beside a new one', async () => {
    await clear();
    const marked = await upsert([
      { id: 'a', day: '2026-11-05', body: '{"v":1,"moved":true}' },
      { id: 'c', day: '2026-11-07', body: '{"v":3}' },
    ]);
    assert.deepEqual([...marked].sort(), ['2026-11-01', '2026-11-05', '2026-11-07']);
    assert.deepEqual(await dirty(), ['2026-11-01', '2026-11-05', '2026-11-07']);
  });

  test('a sample inserted earlier in the same transaction and moved in a later statement marks both days', async () => {
    await clear();
    const marked = await service.ctx.db.transaction().execute(async (trx) => {
      await upsertSamples(trx, userId, rowsOf([{ id: 'd', day: '2026-11-10', body: '{"v":4}' }]));
      return upsertSamples(trx, userId, rowsOf([{ id: 'd', day: '2026-11-12', body: '{"v":4,"m":1}' }]));
    });
    assert.deepEqual([...marked].sort(), ['2026-11-10', '2026-11-12']);
  });

  test('each upsert in one transaction reads only its own rows (the staging table is emptied after it)', async () => {
    await clear();
    const marked = await service.ctx.db.transaction().execute(async (trx) => {
      await upsertSamples(trx, userId, rowsOf([{ id: 'h', day: '2026-11-13', body: '{"v":5}' }]));
      await upsertSamples(trx, userId, rowsOf([{ id: 'h', day: '2026-11-14', body: '{"v":6}' }]));
      return upsertSamples(trx, userId, rowsOf([{ id: 'i', day: '2026-11-15', body: '{"v":7}' }]));
    });
    assert.deepEqual([...marked], ['2026-11-15']);
    const stored = await service.ctx.db
      .selectFrom('mobile_samples')
      .select(['sample_id', 'body'])
      .where('user_id', '=', userId)
      .where('sample_id', 'in', ['h', 'i'])
      .orderBy('sample_id')
      .execute();
    assert.deepEqual(stored, [
      { sample_id: 'h', body: '{"v":6}' },
      { sample_id: 'i', body: '{"v":7}' },
    ]);
  });

  test("an import's checkpoint is stored by the batch's statement, or alone for an empty batch, and the relaxed commit stays in it", async () => {
    const importId = randomUUID();
    await insertImport(service.ctx.db, {
      id: importId,
      developerId,
      userId,
      format: 'apple-health',
      filePath: '/nonexistent',
      totalBytes: 100,
      now: new Date(),
    });
    const at = new Date('2026-11-20T10:00:00Z');
    await service.ctx.db.connection().execute(async (db) => {
      const setting = async () =>
        (await sql<{ setting: string }>`SELECT current_setting('synchronous_commit') AS setting`.execute(db))
          .rows[0]!.setting;
      // The test database turns it off for speed; on here, so that the check below can fail.
      await sql`SET synchronous_commit = on`.execute(db);
      const marked = await upsertSamples(
        db,
        userId,
        rowsOf([{ id: 'e', day: '2026-11-15', body: '{"v":5}' }]),
        {
          importId,
          bytesRead: 40,
          recordsRead: 7,
          recordsImported: 6,
          now: at,
        },
      );
      assert.deepEqual([...marked], ['2026-11-15']);
      assert.equal(await setting(), 'on', 'the setting ended with the batch');
      await sql`RESET synchronous_commit`.execute(db);
    });
    const stored = await findImport(service.ctx.db, importId);
    assert.deepEqual(
      [stored!.bytes_read, stored!.records_read, stored!.records_imported, stored!.checkpoint],
      [40, 7, 6, 7],
    );
    await upsertSamples(service.ctx.db, userId, rowsOf([]), {
      importId,
      bytesRead: 90,
      recordsRead: 12,
      recordsImported: 6,
      now: at,
    });
    const after = await findImport(service.ctx.db, importId);
    assert.deepEqual([after!.bytes_read, after!.checkpoint], [90, 12]);
  });
  test('rows cross as COPY text in UTF-8 and are stored, and kept for the rebuild, exactly', async () => {
    const bodies = [
      { name: 'Ann’s "Apple" Watch \\ 🏃', note: 'a,b{c}' },
      { name: '\u0000\u001f\ud800 lone', note: 'NULL' },
      { name: '', note: '""' },
      // Line breaks inside values: JSON text writes them as escapes, so a body stays one line.
      { name: 'two\nlines\r\n', note: '\u2028\u2029\u0085' },
      // COPY's escapes in an id: backslash, tab, line feed, carriage return, and its `\N` and `\.`.
      { name: 'odd id', note: '\\N \\.' },
    ];
    const samples = bodies.map((body, index) => ({
      id: index === 4 ? 'utf8-4 \\N\t\\.\n\r\\' : `utf8-${index}`,
      // The first alone on its day: its emoji makes the store's length (code points) differ from
      // JavaScript's, so that day is read back; the other day is built from memory.
      day: index === 0 ? '2026-10-01' : '2026-10-02',
      body: JSON.stringify({ id: index === 4 ? 'utf8-4' : `utf8-${index}`, kind: 'steps', ...body }),
    }));
    await upsert(samples);
    const stored = await service.ctx.db
      .selectFrom('mobile_samples')
      .select(['sample_id', 'body'])
      .where('user_id', '=', userId)
      .where('sample_id', 'like', 'utf8-%')
      .orderBy('sample_id')
      .execute();
    assert.deepEqual(
      stored.map((row) => [row.sample_id, row.body]),
      samples.map((sample) => [sample.id, sample.body]),
    );
    const memory = new ImportedDays(mkdtempSync(join(tmpdir(), 'imported-days-')), 1024 * 1024);
    memory.add(rowsOf(samples));
    // A change of the same length in the store: the fingerprint still matches, so what memory
    // kept is what the rebuild gets (and shows it came from memory).
    await service.ctx.db
      .updateTable('mobile_samples')
      .set({ body: sql`replace(body, 'lone', 'LONE')` })
      .where('user_id', '=', userId)
      .where('sample_id', '=', 'utf8-1')
      .execute();
    const kept = await memory.samplesOnDays(service.ctx.db, userId, '2026-10-01', '2026-10-02');
    assert.deepEqual(
      kept.sort((a, b) => String(a.id).localeCompare(String(b.id))),
      samples.map((sample) => JSON.parse(sample.body)),
    );
    for (const raw of ['\n', '\t', '\r'])
      assert.throws(
        () => rowsOf([{ id: 'raw', day: '2026-10-03', body: `{"a":${raw}1}` }]),
        /raw control character/,
      );
    memory.close();
  });

  test('a day kept in parts (days interleaved in a batch, and again in a later one) is rebuilt whole from what was kept', async () => {
    const sample = (id: string, day: string) => ({
      id,
      day,
      body: JSON.stringify({ id, kind: 'steps', day }),
    });
    // As a type-grouped export sends them: every day's steps, then every day's heart rate.
    const first = [sample('k1', '2026-09-05'), sample('k2', '2026-09-06'), sample('k3', '2026-09-05')];
    const second = [sample('k4', '2026-09-06'), sample('k5', '2026-09-05'), sample('k6', '2026-09-06')];
    await upsert(first);
    await upsert(second);
    const memory = new ImportedDays(mkdtempSync(join(tmpdir(), 'imported-days-')), 1024 * 1024);
    memory.add(rowsOf(first));
    memory.add(rowsOf(second));
    // Kept in memory only, a change of the same length in the store is not seen: it came from what was kept.
    await service.ctx.db
      .updateTable('mobile_samples')
      .set({ body: sql`replace(body, 'steps', 'STEPS')` })
      .where('user_id', '=', userId)
      .where('sample_id', 'in', ['k1', 'k6'])
      .execute();
    const kept = await memory.samplesOnDays(service.ctx.db, userId, '2026-09-05', '2026-09-06');
    memory.close();
    const idsOn = (day: string) => kept.filter((one) => one.day === day).map((one) => one.id);
    assert.deepEqual(
      [idsOn('2026-09-05'), idsOn('2026-09-06')],
      [
        ['k1', 'k3', 'k5'],
        ['k2', 'k4', 'k6'],
      ],
    );
    assert.ok(kept.every((one) => one.kind === 'steps'));
  });

  test("what an import keeps for its rebuild is outside the process's memory, on no path, and all of it serves the rebuild", async () => {
    // 16 batches of ~1 MB of bodies, each touching the same 28 days: more than the 12 MB once
    // kept in memory, where the days kept first were dropped and read back from the store.
    const batches = Array.from({ length: 16 }, (_, batch) =>
      Array.from({ length: 1000 }, (_, index) => {
        const id = `big-${batch}-${index}`;
        return {
          id,
          day: `2025-01-${String(1 + (index % 28)).padStart(2, '0')}`,
          body: JSON.stringify({ id, pad: 'x'.repeat(1000) }),
        };
      }),
    );
    for (const batch of batches) await upsert(batch);
    const encoded = batches.map(rowsOf);
    const dir = mkdtempSync(join(tmpdir(), 'imported-days-'));
    const buffersBefore = process.memoryUsage().arrayBuffers;
    const memory = new ImportedDays(dir, 1024 * 1024 * 1024);
    for (const rows of encoded) memory.add(rows);
    const grown = process.memoryUsage().arrayBuffers - buffersBefore;
    assert.deepEqual(readdirSync(dir), [], 'the file is unlinked once opened');
    // The first batch's sample changed in the store, its length kept: the day still comes from what was kept.
    await service.ctx.db
      .updateTable('mobile_samples')
      .set({ body: sql`replace(body, 'xxx', 'yyy')` })
      .where('user_id', '=', userId)
      .where('sample_id', '=', 'big-0-0')
      .execute();
    const kept = await memory.samplesOnDays(service.ctx.db, userId, '2025-01-01', '2025-01-01');
    memory.close();
    assert.equal(kept.length, 16 * 36);
    assert.equal(
      (kept.find((one) => one.id === 'big-0-0') as { pad?: string } | undefined)?.pad,
      'x'.repeat(1000),
    );
    // One batch's scratch (~1 MB) at most: what the encoded batches hold was there before.
    assert.ok(grown < 4 * 1024 * 1024, `${(grown / 1048576).toFixed(1)} MB of buffers kept`);
  });

  test("the table's statistics sample is small: ANALYZE copies 300 rows per unit of the largest target", async () => {
    const { rows } = await sql<{ attname: string; target: number }>`
      SELECT attname, attstattarget::int AS target FROM pg_attribute
      WHERE attrelid = 'mobile_samples'::regclass AND attnum > 0 AND NOT attisdropped
      ORDER BY attnum`.execute(service.ctx.db);
    assert.deepEqual(Object.fromEntries(rows.map((row) => [row.attname, row.target])), {
      user_id: 10,
      sample_id: 10,
      kind: 10,
      local_day: 10,
      start_at: 10,
      end_at: 10,
      body: 0,
    });
  });
});

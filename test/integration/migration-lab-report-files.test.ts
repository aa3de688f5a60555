import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import { createSecretBox, SEALED_BYTES_OVERHEAD } from '../../src/core/secret-box.ts';
import { openFile, resealLegacyFiles, sealFile } from '../../src/features/lab-reports/file-box.ts';
import * as repo from '../../src/features/lab-reports/repo.ts';
import type { Store } from '../../src/store/db.ts';
import { type MigrationStore, openMigrationStore } from '../helpers/migration-store.ts';

/**
 * Migration 0023: lab-report files move from sealed base64 text to sealed bytes (`bytea`). A
 * database at the migration before, holding files in the old form, is migrated: every file reads
 * back byte for byte, the re-seal job turns them into sealed bytes, and a file stored afterwards
 * takes its own size plus the seal. In an empty test
 * database of its own (test/helpers/migration-store.ts).
 */
describe('migration 0023: lab-report files stored as bytes', () => {
  const secretBox = createSecretBox(randomBytes(32));
  let store: Store;
  let migrator: Migrator;
  let scratch: MigrationStore | undefined;

  before(async () => {
    scratch = await openMigrationStore();
    ({ store, migrator } = scratch);
  });
  after(() => scratch?.close());

  const newSession = (uploadId: string, bytes: number) =>
    repo.insertSession(store.db, {
      developerId: 'dev-1',
      uploadId,
      referenceId: null,
      mediaType: 'application/pdf',
      fileName: null,
      inputBytes: bytes,
      history: [],
      at: new Date('2026-05-01T10:00:00.000Z'),
    });

  test('old base64 rows read back byte-identical; new files take their size plus the seal', async () => {
    await scratch!.migrateToJustBefore('0023_lab_report_files_bytes');
    await sql`INSERT INTO developers (id, name, environment) VALUES ('dev-1', 'd', 'sandbox')`.execute(
      store.db,
    );

    // Every byte value, and lengths whose base64 (and base64url) end with 0, 1 and 2 padding characters.
    const every = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const files = [
      Buffer.concat([every, randomBytes(3000)]),
      randomBytes(1000),
      randomBytes(1001),
      randomBytes(1),
    ];
    const sessions: string[] = [];
    for (const [index, file] of files.entries()) {
      const sessionId = await newSession(`upl_old${index}`, file.length);
      sessions.push(sessionId);
      await sql`INSERT INTO lab_report_files (session_id, sealed)
        VALUES (${sessionId}::bigint, ${secretBox.seal(file.toString('base64'))})`.execute(store.db);
    }

    const applied = await migrator.migrateTo('0023_lab_report_files_bytes');
    assert.equal(applied.error, undefined);
    assert.deepEqual(
      applied.results?.map((result) => [result.migrationName, result.status]),
      [['0023_lab_report_files_bytes', 'Success']],
    );

    for (const [index, file] of files.entries()) {
      const stored = await repo.readFile(store.db, sessions[index]!);
      assert.ok(stored);
      assert.equal(stored.legacyBase64, true);
      assert.ok(openFile(secretBox, stored).equals(file), `file ${index} reads back byte for byte`);
    }

    // The re-seal job (with the key) turns the old rows into sealed bytes; once done, it finds none.
    assert.equal(await resealLegacyFiles({ db: store.db, secretBox }), files.length);
    assert.equal(await resealLegacyFiles({ db: store.db, secretBox }), 0);
    for (const [index, file] of files.entries()) {
      const stored = await repo.readFile(store.db, sessions[index]!);
      assert.ok(stored);
      assert.equal(stored.legacyBase64, false);
      assert.equal(stored.sealed.byteLength, file.length + SEALED_BYTES_OVERHEAD);
      assert.ok(openFile(secretBox, stored).equals(file), `file ${index} re-sealed byte for byte`);
    }

    // A file stored now: sealed bytes, its own size plus the seal.
    const file = randomBytes(100_000);
    const sessionId = await newSession('upl_new', file.length);
    await repo.insertFile(store.db, sessionId, sealFile(secretBox, file));
    const { rows } = await sql<{ size: number; legacy: boolean }>`
      SELECT octet_length(sealed)::int AS size, legacy_base64 AS legacy
      FROM lab_report_files WHERE session_id = ${sessionId}::bigint`.execute(store.db);
    assert.deepEqual(rows, [{ size: file.length + SEALED_BYTES_OVERHEAD, legacy: false }]);
    const stored = await repo.readFile(store.db, sessionId);
    assert.ok(stored && openFile(secretBox, stored).equals(file));
  });
});

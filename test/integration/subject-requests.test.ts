// Data-subject requests end to end: a SANDBOX user with synced records, raw payloads and events
// exported as one ZIP archive through a real socket (every file parsed, every count checked against
// the store); another developer's user is a 404; deauthentication leaves an erasure receipt whose
// counts match what was stored, and the rows are gone.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { insertRawPayload } from '../../src/features/data/raw-payloads-repo.ts';
import { upsertOriginalFiles } from '../../src/features/original-files/repo.ts';
import { EXPORTED_TYPES } from '../../src/features/fhir-export/map-records.ts';
import { dataTypeNames } from '../../src/model/index.ts';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { connectSandboxUser } from '../helpers/connections.ts';
import { upload, waitForSession } from '../helpers/lab-reports.ts';
import { zipEntries } from '../helpers/zip.ts';

const FROM = '2025-03-01';
const TO = '2025-03-10';

/** Every entry of a ZIP file by name, as text (yauzl checks each entry's CRC-32 as it reads). */
async function unzip(path: string): Promise<Map<string, string>> {
  const bytes = await zipEntries(path);
  return new Map([...bytes].map(([name, entry]) => [name, entry.toString('utf8')]));
}

const linesOf = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('data-subject requests: the user archive and the erasure receipt', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let other: TestDeveloper;
  let userId: string;
  let origin: string;
  let scratch: string;
  let uploadId: string;
  const pdf = Buffer.from('%PDF-1.7\n%a lab report of person-1\n');
  const originals: [string, Buffer][] = [
    ['act-1', Buffer.from([14, 0x10, 0xd9, 0x07, 0xff, 0xfe, 0x00, 0x80, 0x2e, 0x46, 0x49, 0x54])],
    ['act/2', Buffer.from(Array.from({ length: 70_000 }, (_, index) => (index * 7) % 256))],
  ];

  before(async () => {
    service = await startTestService({ env: { SANDBOX_ARRIVAL_MINUTES: 'off' } });
    developer = await createDeveloper(service.ctx);
    other = await createDeveloper(service.ctx);
    ({ userId } = await connectSandboxUser(service.app, developer, { referenceId: 'person-1' }));
    // Lab reports belong to a reference id: this person's is in the archive, another person's not.
    uploadId = await upload(service, developer, pdf, { filename: 'report.pdf', referenceId: 'person-1' });
    const elsewhere = await upload(service, developer, pdf, { filename: 'x.pdf', referenceId: 'person-2' });
    await waitForSession(service, developer, uploadId);
    await waitForSession(service, developer, elsewhere);
    for (const type of EXPORTED_TYPES) {
      const response = await service.app.inject({
        method: 'GET',
        url: `/v3/connections/${userId}/${type}?start_date=${FROM}&end_date=${TO}`,
        headers: developer.headers,
      });
      assert.equal(response.statusCode, 200, response.body);
    }
    // SANDBOX pages carry no raw payload (only real providers' do), so three are written through
    // the data feature's own writer, as a provider sync would.
    for (const [index, type] of ['daily', 'sleep', 'activity'].entries()) {
      await insertRawPayload(service.ctx.db, {
        userId,
        provider: 'SANDBOX',
        type,
        fetchedAt: new Date(Date.UTC(2025, 2, 10 + index)),
        payload: { sample: index, type },
      });
    }
    // Original files come from real providers' syncs: two are kept as a sync keeps them, one of
    // them binary throughout and named by a summary id that is not a safe file name.
    await upsertOriginalFiles(service.ctx.db, {
      connectionId: userId,
      developerId: developer.devId,
      files: originals.map(([summaryId, bytes]) => ({ summaryId, bytes })),
      at: new Date(Date.UTC(2025, 2, 12)),
    });
    await service.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
    scratch = mkdtempSync(join(tmpdir(), 'subject-requests-'));
  });
  after(async () => {
    await service?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** What the store holds for the user: records per type, raw payloads, events. */
  async function stored() {
    const db = service.ctx.db;
    const records = await db
      .selectFrom('data_records')
      .select(['type', (eb) => eb.fn.countAll<string>().as('n')])
      .where('user_id', '=', userId)
      .groupBy('type')
      .execute();
    const raw = await db
      .selectFrom('raw_payloads')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    const events = await db
      .selectFrom('deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('e.user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return {
      records: new Map(records.map((row) => [row.type, Number(row.n)])),
      raw: Number(raw.n),
      events: Number(events.n),
    };
  }

  test('the archive holds the user, every record type with the right counts, raw payloads and events', async () => {
    const before = await stored();
    assert.ok(before.records.size >= EXPORTED_TYPES.length, `types stored: ${[...before.records.keys()]}`);
    assert.ok(before.raw > 0, 'the sync kept raw payloads');
    assert.ok(before.events > 0, 'events were sent about the user');

    const response = await fetch(`${origin}/v2/users/${userId}/export`, { headers: developer.headers });
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(response.headers.get('content-type'), 'application/zip');
    assert.match(
      response.headers.get('content-disposition') ?? '',
      /attachment; filename="tributary-user-.*\.zip"/,
    );
    const path = join(scratch, 'archive.zip');
    writeFileSync(path, Buffer.from(await response.arrayBuffer()));
    const entries = await unzip(path);
    const bytes = await zipEntries(path);

    const manifest = JSON.parse(entries.get('manifest.json')!) as {
      user_id: string;
      files: { name: string; count: number }[];
    };
    assert.equal(manifest.user_id, userId);
    assert.deepEqual(
      manifest.files.map((file) => file.name).sort(),
      [...entries.keys()].sort(),
      'the manifest lists every file of the archive, once',
    );
    const countOf = (name: string) => manifest.files.find((file) => file.name === name)!.count;

    const user = JSON.parse(entries.get('user.json')!) as Record<string, unknown>;
    assert.equal(user['user_id'], userId);
    assert.equal(user['provider'], 'SANDBOX');

    for (const type of dataTypeNames) {
      const name = `records/${type}.ndjson`;
      const lines = linesOf(entries.get(name) ?? '');
      assert.equal(lines.length, before.records.get(type) ?? 0, `${type}: lines = stored rows`);
      assert.equal(countOf(name), lines.length, `${type}: manifest count`);
      for (const line of lines) {
        assert.equal(typeof line['key'], 'string');
        assert.equal(typeof line['record'], 'object');
      }
    }
    const raw = linesOf(entries.get('raw_payloads.ndjson')!);
    assert.equal(raw.length, before.raw);
    assert.equal(countOf('raw_payloads.ndjson'), before.raw);
    assert.ok(raw.every((line) => line['provider'] === 'SANDBOX' && line['payload'] !== undefined));
    const events = linesOf(entries.get('webhook_events.ndjson')!);
    assert.equal(events.length, before.events);
    assert.equal(countOf('webhook_events.ndjson'), before.events);
    for (const event of events) assert.equal(typeof event['body'], 'object', 'the body as sent, parsed');
    const reports = linesOf(entries.get('lab_reports.ndjson')!);
    assert.deepEqual(
      reports.map((report) => report['upload_id']),
      [uploadId],
      "the person's report only",
    );
    assert.equal(countOf('lab_reports.ndjson'), 1);
    assert.deepEqual(Buffer.from(entries.get(`lab_report_files/${uploadId}.pdf`)!, 'utf8'), pdf);
    assert.equal(countOf(`lab_report_files/${uploadId}.pdf`), 1);
    for (const [summaryId, file] of originals) {
      const name = `original_files/SANDBOX/${encodeURIComponent(summaryId)}.fit`;
      assert.deepEqual(bytes.get(name), file, `${summaryId}: the original file, byte for byte`);
      const listed = manifest.files.find((entry) => entry.name === name) as Record<string, unknown>;
      assert.equal(listed['count'], 1);
      assert.equal(listed['media_type'], 'application/vnd.ant.fit');
      assert.match(String(listed['description']), new RegExp(`summary_id ${summaryId}`));
    }
  });

  test("another developer's user, an unknown user and a malformed id: problems, never an archive", async () => {
    const theirs = problemOf(
      await service.app.inject({ method: 'GET', url: `/v2/users/${userId}/export`, headers: other.headers }),
    );
    assert.equal(theirs.status, 404);
    assert.match(theirs.contentType, /^application\/problem\+json/);
    const unknown = await service.app.inject({
      method: 'GET',
      url: '/v2/users/8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41/export',
      headers: developer.headers,
    });
    assert.equal(unknown.statusCode, 404);
    const malformed = problemOf(
      await service.app.inject({
        method: 'GET',
        url: '/v2/users/not-a-uuid/export',
        headers: developer.headers,
      }),
    );
    assert.equal(malformed.status, 400);
    assert.match(malformed.body.detail ?? '', /user_id/);
    const noReceipt = await service.app.inject({
      method: 'GET',
      url: `/v2/users/${userId}/erasure-receipt`,
      headers: developer.headers,
    });
    assert.equal(noReceipt.statusCode, 404, 'a connected user has no receipt');
  });

  test('deauthentication leaves a receipt whose counts match what was stored, and the rows are gone', async () => {
    const before = await stored();
    const tokens = await service.ctx.db
      .selectFrom('provider_tokens')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    const deauth = await fetch(`${origin}/v2/auth/deauthenticateUser?user_id=${userId}`, {
      method: 'DELETE',
      headers: developer.headers,
    });
    assert.equal(deauth.status, 200, await deauth.text());

    const response = await fetch(`${origin}/v2/users/${userId}/erasure-receipt`, {
      headers: developer.headers,
    });
    assert.equal(response.status, 200);
    const { receipt } = (await response.json()) as {
      receipt: {
        user_id: string;
        provider: string;
        deleted_rows: Record<string, number>;
        total_rows: number;
      };
    };
    assert.equal(receipt.user_id, userId);
    assert.equal(receipt.provider, 'SANDBOX');
    const storedRecords = [...before.records.values()].reduce((sum, n) => sum + n, 0);
    assert.ok(storedRecords > 0);
    assert.equal(receipt.deleted_rows['data_records'], storedRecords);
    assert.equal(receipt.deleted_rows['raw_payloads'], before.raw);
    assert.equal(receipt.deleted_rows['provider_tokens'], Number(tokens.n));
    assert.equal(receipt.deleted_rows['connections'], 1);
    assert.equal(receipt.deleted_rows['original_files'], originals.length);
    assert.equal(
      receipt.total_rows,
      Object.values(receipt.deleted_rows).reduce((sum, n) => sum + n, 0),
    );
    assert.ok(!JSON.stringify(receipt).includes('"record"'), 'no health data in the receipt');

    const after = await stored();
    assert.equal(after.records.size, 0, 'records gone');
    assert.equal(after.raw, 0, 'raw payloads gone');
    const gone = await service.app.inject({
      method: 'GET',
      url: `/v2/users/${userId}/export`,
      headers: developer.headers,
    });
    assert.equal(gone.statusCode, 404, 'nothing left to export');
    const theirs = await service.app.inject({
      method: 'GET',
      url: `/v2/users/${userId}/erasure-receipt`,
      headers: other.headers,
    });
    assert.equal(theirs.statusCode, 404, 'another developer never sees the receipt');
  });
});

// Issue 24 §5 (SDK part) and §7: the upload token sits on end users' phones, so each connection is
// held to a rate and a number of uploads waiting for normalization (429 with Retry-After past
// either, other connections unaffected); spooled export files a crash left are swept; every
// answer says nosniff, and HSTS when it went out over HTTPS.
import assert from 'node:assert/strict';
import { mkdirSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { insertImport } from '../../src/features/mobile/imports-repo.ts';
import { SPOOL_GRACE_MS } from '../../src/features/mobile/spool.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { sdkConnect } from '../helpers/mobile.ts';

describe('SDK upload limits, spool sweep, security headers', () => {
  let service: TestService;
  let developer: TestDeveloper;
  const clock = { at: Date.parse('2026-11-20T10:00:10Z'), now: () => new Date(clock.at) };

  before(async () => {
    // No workers: uploads stay pending until the test normalizes them.
    service = await startTestService({
      work: false,
      clock,
      env: { MOBILE_UPLOAD_RATE: '3/60', MOBILE_UPLOAD_PENDING_MAX: '5', TRUST_PROXY: 'true' },
    });
    developer = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
  });

  const upload = (uploadToken: string) =>
    service.app.inject({
      method: 'POST',
      url: '/v2/sdk/upload',
      headers: { authorization: `Bearer ${uploadToken}` },
      payload: { platform: 'APPLE', records: [] },
    });

  test('a connection past its rate or with too many uploads pending gets 429; others do not', async () => {
    const phone = await sdkConnect(service.app, developer, 'APPLE', 'limited-phone');
    const other = await sdkConnect(service.app, developer, 'APPLE', 'other-phone');
    for (let index = 0; index < 3; index++) assert.equal((await upload(phone.uploadToken)).statusCode, 202);
    const limited = await upload(phone.uploadToken);
    assert.equal(limited.statusCode, 429, limited.body);
    assert.match(String(limited.headers['content-type']), /application\/problem\+json/);
    assert.equal(limited.headers['retry-after'], '50', 'the rest of the 60 s window');
    assert.match(
      limited.json().detail,
      /more than 3 uploads in 60 s from this connection \(MOBILE_UPLOAD_RATE\)/,
    );
    assert.equal((await upload(other.uploadToken)).statusCode, 202, 'another connection is not limited');

    // The next window: two more fit the rate, then five wait for normalization and the sixth waits.
    clock.at += 60_000;
    for (let index = 0; index < 2; index++) assert.equal((await upload(phone.uploadToken)).statusCode, 202);
    const pending = await upload(phone.uploadToken);
    assert.equal(pending.statusCode, 429, pending.body);
    assert.equal(pending.headers['retry-after'], '10');
    assert.match(pending.json().detail, /5 uploads of this connection are still being normalized/);

    // Once normalized, uploads are taken again (the rate window still has room).
    const waiting = await service.ctx.db
      .selectFrom('mobile_uploads')
      .select('id')
      .where('user_id', '=', phone.userId)
      .execute();
    for (const row of waiting) await service.ctx.mobile.processUpload(row.id);
    assert.equal((await upload(phone.uploadToken)).statusCode, 202);
  });

  test('spooled files no import will read are swept; arriving and queued ones stay', async () => {
    const dir = join(service.config.dataDir, 'imports');
    mkdirSync(dir, { recursive: true });
    const spooled = (id: string, ageMs: number) => {
      const path = join(dir, `${id}.upload`);
      writeFileSync(path, 'x');
      const at = new Date(clock.at - ageMs);
      utimesSync(path, at, at);
      return path;
    };
    // A kill -9 during the upload: the file stayed, no import row was ever written.
    const orphan = spooled(randomUUID(), SPOOL_GRACE_MS + 60_000);
    const arriving = spooled(randomUUID(), 60_000);
    const queuedId = randomUUID();
    const queued = spooled(queuedId, SPOOL_GRACE_MS + 60_000);
    const user = await sdkConnect(service.app, developer, 'APPLE', 'spool-owner');
    await insertImport(service.ctx.db, {
      id: queuedId,
      developerId: developer.devId,
      userId: user.userId,
      format: 'apple-health',
      filePath: queued,
      totalBytes: 1,
      now: clock.now(),
    });
    const unrelated = join(dir, 'notes.txt');
    writeFileSync(unrelated, 'kept');

    assert.equal(await service.ctx.mobile.sweepSpool(), 1);
    assert.equal(existsSync(orphan), false);
    assert.equal(existsSync(arriving), true, 'an upload may still be arriving');
    assert.equal(existsSync(queued), true, 'a queued import still needs its file');
    assert.equal(existsSync(unrelated), true, 'only spooled uploads are swept');
  });

  test('every answer says nosniff; HSTS only when the request came over HTTPS', async () => {
    const plain = await service.app.inject({
      method: 'GET',
      url: '/v2/import/not-an-id',
      headers: developer.headers,
    });
    assert.equal(plain.statusCode, 404);
    assert.equal(plain.headers['x-content-type-options'], 'nosniff', 'a problem answer too');
    assert.equal(plain.headers['strict-transport-security'], undefined);
    const viaProxy = await service.app.inject({
      method: 'GET',
      url: '/health',
      headers: { 'x-forwarded-proto': 'https' },
    });
    assert.equal(viaProxy.headers['x-content-type-options'], 'nosniff');
    assert.equal(viaProxy.headers['strict-transport-security'], 'max-age=31536000');
  });
});

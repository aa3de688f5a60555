// Hostile Apple Health exports (issue 24): small zips that ran the server's heap out — two million
// nested elements (~15 KB), one 400 MB attribute, 32 million children of one record — are posted
// over a real socket, streamed from files generated on disk (never held in memory). Each import
// ends `failed` with a reason; the API (this process) answers /health within 2 s throughout; an
// export imported before and one imported after are stored in full.
import assert from 'node:assert/strict';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { exportText, GENERATED_DAY, zipArchive } from '../helpers/apple-export.ts';
import {
  deepNesting,
  hugeAttribute,
  manyChildren,
  watchJob,
  writeStreamedZip,
} from '../helpers/hostile-files.ts';

type Json = Record<string, unknown>;
type ImportView = {
  import_id: string;
  user_id: string;
  status: string;
  records_imported: number;
  error?: string;
};

describe('hostile Apple Health exports', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let baseUrl: string;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tributary-hostile-'));
    service = await startTestService({
      // A smaller reader process than the default (512 MB) so each bomb reaches it sooner.
      env: { SANDBOX_ARRIVAL_MINUTES: 'off', MOBILE_IMPORT_READER_MEMORY_MB: '256' },
    });
    developer = await createDeveloper(service.ctx);
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await service?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = async (path: string) => {
    const response = await fetch(`${baseUrl}${path}`, { headers: developer.headers });
    assert.equal(response.status, 200, path);
    return (await response.json()) as Json;
  };

  async function importAndWatch(reference: string, body: Buffer | string) {
    const response = await fetch(`${baseUrl}/v2/import/apple-health?reference_id=${reference}`, {
      method: 'POST',
      headers: { ...developer.headers, 'content-type': 'application/zip' },
      body:
        typeof body === 'string'
          ? (Readable.toWeb(createReadStream(body)) as ReadableStream<Uint8Array>)
          : new Uint8Array(body),
      duplex: 'half',
    } as RequestInit);
    const started = (await response.json()) as ImportView;
    assert.equal(response.status, 202, JSON.stringify(started));
    const watched = await watchJob(baseUrl, async () => {
      const view = (await get(`/v2/import/${started.import_id}`)) as ImportView;
      return view.status === 'completed' || view.status === 'failed' ? view : undefined;
    });
    assert.ok(watched.healthChecks >= 1);
    return watched.result;
  }

  const goodExport = (startDay: string) =>
    zipArchive([
      {
        name: 'apple_health_export/export.xml',
        data: Buffer.from(exportText({ days: 3, startDay, heartRatePerDay: 10 })),
      },
    ]);

  async function stepsOf(userId: string, from: string, to: string): Promise<number[]> {
    const days = (await get(`/v2/daily?user_id=${userId}&start_date=${from}&end_date=${to}&to_webhook=false`))
      .data as { distance_data: { steps: number } }[];
    return days.map((day) => day.distance_data.steps);
  }

  let earlier: ImportView;

  test('an export imported before the hostile ones is stored in full', async () => {
    earlier = await importAndWatch('good-before', goodExport('2025-05-01'));
    assert.equal(earlier.status, 'completed', earlier.error);
    assert.deepEqual(
      await stepsOf(earlier.user_id, '2025-05-01', '2025-05-04'),
      Array(3).fill(GENERATED_DAY.steps),
    );
  });

  const HOSTILE: { name: string; chunks: () => Iterable<string> }[] = [
    { name: 'two million nested elements (~15 KB zipped)', chunks: () => deepNesting(2_000_000) },
    { name: 'one 400 MB attribute', chunks: () => hugeAttribute(400) },
    { name: '32 million children of one record', chunks: () => manyChildren(32_000_000) },
  ];

  for (const [index, hostile] of HOSTILE.entries()) {
    test(`${hostile.name}: the import fails with a reason; /health answers throughout`, async (t) => {
      const path = join(dir, `hostile-${index}.zip`);
      await writeStreamedZip(path, 'apple_health_export/export.xml', hostile.chunks());
      const view = await importAndWatch(`hostile-${index}`, path);
      assert.equal(view.status, 'failed', JSON.stringify(view));
      t.diagnostic(view.error ?? '');
      assert.match(view.error ?? '', /memory|limit|nest|deep|attribute|children|elements|could not be read/i);
    });
  }

  test('an export imported after the hostile ones is stored in full; the one before is intact', async () => {
    const later = await importAndWatch('good-after', goodExport('2025-06-01'));
    assert.equal(later.status, 'completed', later.error);
    assert.deepEqual(
      await stepsOf(later.user_id, '2025-06-01', '2025-06-04'),
      Array(3).fill(GENERATED_DAY.steps),
    );
    assert.deepEqual(
      await stepsOf(earlier.user_id, '2025-05-01', '2025-05-04'),
      Array(3).fill(GENERATED_DAY.steps),
    );
  });
});

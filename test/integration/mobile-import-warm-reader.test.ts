// An export's reader process is forked when its upload starts spooling, and the import reads with
// that process (features/mobile/warm-readers.ts, issue 44): its boot and module loading overlap the
// upload instead of following it. An upload that fails leaves no reader behind.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { exportText } from '../helpers/apple-export.ts';

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return ''; // gone meanwhile
  }
};

/** This process's children running an isolated task (core/isolation-host.ts), by process id. */
function isolatedChildren(): number[] {
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${process.pid}/task`);
  } catch {
    return [];
  }
  return tasks
    .flatMap((task) => read(`/proc/${process.pid}/task/${task}/children`).split(' ').filter(Boolean))
    .map(Number)
    .filter((pid) => read(`/proc/${pid}/cmdline`).includes('isolation-host'));
}

/** Resolves once `body` has handed everything written to it to its reader (the spool). */
async function drained(body: PassThrough) {
  while (body.readableLength > 0 || body.writableLength > 0) await sleep(5);
}

describe(
  'the export reader starts with the upload',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  () => {
    let service: TestService;
    let developer: TestDeveloper;

    before(async () => {
      service = await startTestService({ env: { MOBILE_IMPORT_MAX_BYTES: '1000000' } });
      developer = await createDeveloper(service.ctx);
    });
    after(async () => {
      await service?.close();
    });
    /** An Apple Health upload started with a body the test writes itself, not queued. */
    const startUpload = (referenceId: string) => {
      const body = new PassThrough();
      const starting = service.ctx.mobile.startImport({
        developerId: developer.devId,
        format: 'apple-health',
        referenceId,
        body,
        enqueue: false,
      });
      return { body, starting };
    };

    test('a reader process runs while the upload is still spooling, and the import reads with it', async () => {
      const xml = Buffer.from(exportText({ days: 20, startDay: '2024-05-01', heartRatePerDay: 60 }));
      assert.ok(xml.length < 1_000_000, String(xml.length));
      const others = new Set(isolatedChildren());
      const { body, starting } = startUpload('warm-1');
      body.write(xml.subarray(0, xml.length >> 1));
      await drained(body);
      // Half the file spooled, the rest not yet sent.
      const during = isolatedChildren().filter((pid) => !others.has(pid));
      assert.equal(during.length, 1, 'one reader process forked while the upload spools');
      body.end(xml.subarray(xml.length >> 1));
      const queued = await starting;
      const readers = new Set<number>();
      const final = await service.ctx.mobile.runImport(queued.import_id, (view) => {
        if (view.status !== 'running') return;
        for (const pid of isolatedChildren()) if (!others.has(pid)) readers.add(pid);
      });
      assert.equal(final?.status, 'completed', final?.error);
      assert.equal(final?.records_read, 20 * 67);
      assert.deepEqual([...readers], during, 'every batch came while only that reader ran');
    });

    test('an upload that fails leaves no reader process behind', async () => {
      const others = new Set(isolatedChildren());
      const { body, starting } = startUpload('warm-2');
      body.write(Buffer.alloc(1000, 0x20));
      await drained(body);
      assert.equal(isolatedChildren().filter((pid) => !others.has(pid)).length, 1);
      // Past MOBILE_IMPORT_MAX_BYTES: refused, its reader killed.
      body.end(Buffer.alloc(1_000_000, 0x20));
      await assert.rejects(starting, /larger than 1000000 bytes/);
      while (isolatedChildren().some((pid) => !others.has(pid))) await sleep(5);
    });
  },
);

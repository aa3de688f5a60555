// Poison jobs end (issue 24), at the features: when the queue gives up on a lab report's job (its
// worker died each time), the session fails with the reason and its `lab_report.failed` event is
// written; an attempt that finds every earlier one unfinished fails at once without reading the
// file again; an import given up fails with the reason and its spooled file goes. Jobs of both
// queues carry their developer as their group (per-developer concurrency).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { LAB_REPORT_QUEUE } from '../../src/features/lab-reports/queue.ts';
import * as labRepo from '../../src/features/lab-reports/repo.ts';
import { createLabReportsService, MAX_ATTEMPTS } from '../../src/features/lab-reports/service.ts';
import { IMPORT_QUEUE } from '../../src/features/mobile/ports.ts';
import * as mobileRepo from '../../src/features/mobile/imports-repo.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { exportText } from '../helpers/apple-export.ts';
import { findJobs } from '../helpers/jobs.ts';
import { generateReport, renderPdf } from '../helpers/lab-report-samples.ts';

describe('poison jobs: sessions and imports fail with the reason', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let pdf: Buffer;

  before(async () => {
    // No workers: the test plays the queue's part.
    service = await startTestService({ work: false, env: { SANDBOX_ARRIVAL_MINUTES: 'off' } });
    developer = await createDeveloper(service.ctx);
    pdf = await renderPdf(
      generateReport({
        layout: 'one-column',
        unitsColumn: true,
        system: 'US',
        flagStyle: 'letters',
        keys: ['glucose'],
      }),
    );
  });
  after(async () => {
    await service?.close();
  });

  const sessionOf = async (uploadId: string) => {
    const row = await service.ctx.db
      .selectFrom('lab_report_sessions')
      .select(['id', 'status', 'error', 'event_id'])
      .where('upload_id', '=', uploadId)
      .executeTakeFirstOrThrow();
    return { ...row, id: String(row.id) };
  };

  const eventType = async (eventId: string) =>
    (await service.ctx.db
      .selectFrom('events')
      .select('type')
      .where('id', '=', eventId as never)
      .executeTakeFirstOrThrow()) as { type: string };

  test("a lab report's job is grouped by its developer", async () => {
    const { upload_id: uploadId } = await service.ctx.labReports.upload(
      { id: developer.devId },
      { bytes: pdf, fileName: null },
      undefined,
    );
    const session = await sessionOf(uploadId);
    const [job] = await findJobs<{ sessionId: string }>(service.ctx, LAB_REPORT_QUEUE, {
      data: { sessionId: session.id },
    });
    assert.equal(job?.groupId, developer.devId);
  });

  test('a session whose job the queue gave up on fails with the reason and its failed event', async () => {
    const { upload_id: uploadId } = await service.ctx.labReports.upload(
      { id: developer.devId },
      { bytes: pdf, fileName: null },
      undefined,
    );
    const { id } = await sessionOf(uploadId);
    await service.ctx.labReports.giveUp(id, 'job heartbeat lost');
    const session = await sessionOf(uploadId);
    assert.equal(session.status, 'failed');
    assert.match(
      JSON.stringify(session.error),
      /stopped \d time\(s\) without finishing \(job heartbeat lost\)/,
    );
    assert.equal((await eventType(session.event_id!)).type, 'lab_report.failed');
    // Given up twice (a dead-letter job retried): still one failure, one event.
    await service.ctx.labReports.giveUp(id, 'again');
    assert.equal((await sessionOf(uploadId)).event_id, session.event_id);
  });

  test('an attempt after every earlier one died unfinished fails at once, without reading the file', async () => {
    let reads = 0;
    const labReports = createLabReportsService({
      db: service.ctx.db,
      jobs: service.ctx.jobs,
      clock: service.ctx.clock,
      log: service.ctx.log,
      secretBox: service.ctx.secretBox,
      publicUrl: service.config.publicUrl,
      webhooks: service.ctx.webhooks,
      parse: async () => {
        reads++;
        throw new Error('never called');
      },
    });
    const { upload_id: uploadId } = await labReports.upload(
      { id: developer.devId },
      { bytes: pdf, fileName: null },
      undefined,
    );
    const { id } = await sessionOf(uploadId);
    // Each of these attempts started and its worker died before it finished.
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++)
      await service.ctx.db.transaction().execute((trx) => labRepo.startAttempt(trx, id));
    await labReports.process(id);
    assert.equal(reads, 0);
    const session = await sessionOf(uploadId);
    assert.equal(session.status, 'failed');
    assert.match(JSON.stringify(session.error), new RegExp(`stopped ${MAX_ATTEMPTS} time`));
    assert.equal((await eventType(session.event_id!)).type, 'lab_report.failed');
  });

  test('an import given up fails with the reason and its spooled file is removed; its job is grouped', async () => {
    const started = await service.ctx.mobile.startImport({
      developerId: developer.devId,
      format: 'apple-health',
      referenceId: 'poison-import',
      body: Readable.from([Buffer.from(exportText({ days: 1 }))]),
    });
    const [job] = await findJobs(service.ctx, IMPORT_QUEUE, { id: started.import_id });
    assert.equal(job?.groupId, developer.devId);
    const row = (await mobileRepo.findImport(service.ctx.db, started.import_id))!;
    assert.ok(existsSync(row.file_path));
    await service.ctx.mobile.giveUpImport(started.import_id, 'job heartbeat lost', 6);
    const view = (await service.ctx.mobile.importStatus(developer.devId, started.import_id))!;
    assert.equal(view.status, 'failed');
    assert.equal(view.error, 'the import stopped 6 time(s) without finishing (job heartbeat lost)');
    assert.equal(existsSync(row.file_path), false);
  });
});

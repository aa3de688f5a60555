import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type ChildEnvironment,
  childEnvironment,
  type RunningService,
  runCli,
  startService,
} from '../helpers/child-service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * The embedded store on a disk that fills up: the service's data directory on a small tmpfs of
 * its own, filled to the brim while requests write. Writes answer 507 problem+json (never a
 * 500, never a crash) and say so in the log; reads keep working; every write acknowledged
 * before is still there; once space is freed writes succeed again, and after a restart the
 * store opens cleanly with nothing lost.
 */
// Room for a fresh embedded PostgreSQL cluster (its WAL segments are 16 MB each) before the filling.
const MOUNT_SIZE = '192m';

function mountTmpfs(): { path: string; unmount(): void } | string {
  if (process.platform !== 'linux' || process.getuid?.() !== 0)
    return 'needs root on Linux to mount a small tmpfs for the data directory';
  const path = mkdtempSync(join(tmpdir(), 'tributary-disk-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${MOUNT_SIZE},mode=0711`, 'tmpfs', path], {
      stdio: 'pipe',
    });
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    return `could not mount a tmpfs here (${String((error as Error).message).split('\n')[0]})`;
  }
  return {
    path,
    unmount() {
      execFileSync('umount', ['-l', path], { stdio: 'pipe' });
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** Takes all free space but `leaveBytes` with one file. */
function fillDisk(directory: string, leaveBytes: number): string {
  const file = join(directory, 'filler');
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(1 << 20, 1);
  try {
    for (;;) {
      const { bavail, bsize } = statfsSync(directory);
      const free = bavail * bsize - leaveBytes;
      if (free <= 0) break;
      writeSync(fd, chunk, 0, Math.min(chunk.length, free));
    }
  } finally {
    closeSync(fd);
  }
  return file;
}

/**
 * Takes whatever space came free since the disk filled up (the database may delete a file of its
 * own after a failed write): what is left is less than one block, so the disk stays full.
 */
function topUp(file: string): void {
  const fd = openSync(file, 'a');
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

const mount = mountTmpfs();

describe('embedded store on a full disk', { skip: typeof mount === 'string' ? mount : false }, () => {
  const mounted = typeof mount === 'string' ? undefined : mount;
  const root = mounted?.path ?? '';
  let environment: ChildEnvironment;
  let service: RunningService | undefined;
  let receiver: WebhookReceiver;
  let headers: Record<string, string>;

  before(async () => {
    environment = await childEnvironment({ DATA_DIR: join(root, 'data'), DATABASE_URL: '' });
    receiver = await startWebhookReceiver();
    service = await startService(environment.env);
    const created = await runCli(
      ['developers', 'create', '--name', 'Disk full', '--environment', 'sandbox', '--json'],
      environment.env,
    );
    assert.equal(created.code, 0, created.stderr);
    const developer = JSON.parse(created.stdout) as { dev_id: string; api_key: string };
    headers = { 'dev-id': developer.dev_id, 'x-api-key': developer.api_key };
    const set = await fetch(`${service.url}/v2/webhook`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url }),
    });
    assert.equal(set.status, 200);
  });

  after(async () => {
    await service?.stop('SIGTERM').catch(() => {});
    await receiver?.close();
    await environment?.cleanup();
    mounted?.unmount();
  });

  test('writes answer 507 problem+json while the disk is full, and work again once space is freed', async (t) => {
    const queueTest = async () => {
      const response = await fetch(`${service!.url}/v2/webhook/test`, { method: 'POST', headers });
      const body = (await response.json()) as { event_id?: string; type?: string; detail?: string };
      return { status: response.status, contentType: response.headers.get('content-type') ?? '', body };
    };

    const accepted: string[] = [];
    const filler = fillDisk(root, 256 * 1024);
    let full: Awaited<ReturnType<typeof queueTest>> | undefined;
    for (let i = 0; i < 20_000 && !full; i++) {
      const answer = await queueTest();
      if (answer.status === 202) accepted.push(answer.body.event_id!);
      else if (answer.status === 507) full = answer;
      else assert.fail(`POST /v2/webhook/test answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    }
    assert.ok(full, 'the disk never filled up');
    assert.equal(full.contentType, 'application/problem+json; charset=utf-8');
    assert.match(full.body.type!, /\/problems\/insufficient-storage$/);
    assert.match(full.body.detail!, /out of disk space; nothing was written/);
    t.diagnostic(`${accepted.length} events accepted before the disk was full`);

    // Still full: writes keep failing cleanly, reads keep working, the process stays up. A write
    // that fits in space the database had already allocated (a WAL segment, a half-used page) may
    // still succeed, and then it must be kept like any other; the next one that needs new space
    // answers 507 again.
    topUp(filler);
    let stillFull = false;
    for (let i = 0; i < 2_000 && !stillFull; i++) {
      const answer = await queueTest();
      if (answer.status === 202) accepted.push(answer.body.event_id!);
      else if (answer.status === 507) stillFull = true;
      else
        assert.fail(
          `POST /v2/webhook/test answered ${answer.status} on a full disk: ${JSON.stringify(answer.body)}`,
        );
    }
    assert.ok(stillFull, 'writes kept succeeding on a full disk');
    assert.equal((await fetch(`${service!.url}/v2/webhook`, { headers })).status, 200);
    assert.equal(service!.process.exitCode, null);
    assert.match(service!.output(), /out of disk space/);

    rmSync(filler);
    const after = await queueTest();
    assert.equal(after.status, 202, `after freeing space: ${JSON.stringify(after.body)}`);
    accepted.push(after.body.event_id!);

    // Nothing acknowledged was lost, and the store opens cleanly after a restart.
    assert.equal(await service!.stop('SIGTERM'), 0);
    service = await startService(environment.env);
    const listed = new Set<string>();
    let cursor: string | null = null;
    do {
      const page = (await (
        await fetch(
          `${service.url}/v2/webhook/deliveries?type=healthcheck&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
          { headers },
        )
      ).json()) as { deliveries: { event_id: string }[]; next_cursor: string | null };
      for (const delivery of page.deliveries) listed.add(delivery.event_id);
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(
      accepted.filter((id) => !listed.has(id)),
      [],
      'every accepted event is in the store after the restart',
    );
  });
});

// kill -9 of the worker process in the middle of a bulk export: another worker resumes it from the
// last committed step, and the manifest lists each file once, each line once, the export whole.
// PostgreSQL only: two processes share the store (embedded PGlite is one process's).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { EXPORTED_TYPES } from '../../src/features/fhir-export/map-records.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectSandboxUser } from '../helpers/connections.ts';
import { until } from '../helpers/until.ts';

const WORKER = new URL('../helpers/fhir-export-worker.ts', import.meta.url).pathname;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
type Wire = Record<string, any>;

describe('FHIR bulk export under kill -9', () => {
  let service: TestService;
  let developer: TestDeveloper;
  const users: string[] = [];
  const children: ChildProcess[] = [];

  before(async () => {
    // This process serves HTTP and holds no workers: the export runs in the child processes.
    service = await startTestService({ env: { SANDBOX_ARRIVAL_MINUTES: 'off' }, work: false });
    developer = await createDeveloper(service.ctx);
    for (let index = 0; index < 3; index++) {
      const { userId } = await connectSandboxUser(service.app, developer);
      users.push(userId);
      for (const type of EXPORTED_TYPES) {
        const read = await get(`/v3/connections/${userId}/${type}?start_date=2025-03-01&end_date=2025-03-21`);
        assert.equal(read.statusCode, 200, read.body);
      }
    }
  });
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    await service?.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) =>
    service.app.inject({ method: 'GET', url, headers: { ...developer.headers, ...headers } });

  function worker(mode: 'slow' | 'fast') {
    const child = spawn(
      process.execPath,
      [
        WORKER,
        service.store.postgres!.connectionString,
        mode,
        service.config.encryptionKey.toString('hex'),
        service.config.dataDir,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(child);
    const state = { output: '' };
    child.stdout!.on('data', (chunk: Buffer) => (state.output += chunk.toString()));
    return { child, state };
  }

  test('the export resumes after its worker is killed mid-way; each file and line once', async () => {
    const started = await get('/v2/fhir/$export', { prefer: 'respond-async' });
    assert.equal(started.statusCode, 202, started.body);
    const status = String(started.headers['content-location']).replace('http://127.0.0.1:8080', '');

    const first = worker('slow');
    // Several pages committed, the export not done: then the worker dies without a word.
    await until('the first worker to be mid-export', () => /page 8\n/.test(first.state.output), {
      timeoutMs: 120_000,
    });
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    const midway = await get(status);
    assert.equal(midway.statusCode, 202, 'not finished when killed');

    const second = worker('fast');
    await until('the second worker to start', () => second.state.output.includes('started'), {
      timeoutMs: 60_000,
    });
    const manifest = await until<Wire | null>(
      'the export to complete on the second worker',
      async () => {
        const response = await get(status);
        return response.statusCode === 200 ? (JSON.parse(response.body) as Wire) : null;
      },
      { timeoutMs: 180_000, intervalMs: 500 },
    );
    const outputs = manifest!['output'] as Wire[];
    const keys = outputs.map((output) => new URL(output['url']).pathname);
    assert.equal(new Set(keys).size, keys.length, 'each file once');
    assert.equal(outputs.filter((output) => output['type'] === 'Patient').length, users.length);
    for (const output of outputs) {
      const file = await service.app.inject({
        method: 'GET',
        url: String(output['url']).replace('http://127.0.0.1:8080', ''),
      });
      assert.equal(file.statusCode, 200);
      const ids = file.body
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as Wire)['id'] as string);
      assert.equal(ids.length, output['count']);
      assert.equal(new Set(ids).size, ids.length, `${output['type']} of ${keys[0]}: no line twice`);
    }
    // Whole: every user's Observations, as many as $everything serves.
    for (const userId of users) {
      const file = outputs.find(
        (output) => output['type'] === 'Observation' && String(output['url']).includes(`/${userId}/`),
      );
      let served = 0;
      let next: string | undefined = `/v2/fhir/Patient/${userId}/$everything?_count=1000`;
      while (next) {
        const page = JSON.parse((await get(next)).body) as Wire;
        served += (page['entry'] as Wire[]).filter(
          (entry) => entry['resource']['resourceType'] === 'Observation',
        ).length;
        next = (page['link'] as Wire[])
          .find((link) => link['relation'] === 'next')
          ?.['url']?.replace('http://127.0.0.1:8080', '');
      }
      assert.equal(file?.['count'], served, `user ${userId}`);
    }
  });
});

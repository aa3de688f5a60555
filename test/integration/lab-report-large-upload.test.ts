// A lab report near the 20 MB limit, uploaded over a real socket to the service as an operator runs
// it (`bin/tributary.js serve`, a child process with the service's own heap limit, 384 MB): it is
// accepted and read, and the process lives on; one over the limit is a 413 problem. Issue 40, row 9:
// on embedded storage an upload of 8 MB or more ran the process out of heap before it answered
// (PGlite's bytea conversion built one string per byte). Runs on PostgreSQL with DATABASE_URL.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { childEnvironment, runCli, type RunningService, startService } from '../helpers/child-service.ts';
import { largePdf } from '../helpers/hostile-files.ts';
import { until } from '../helpers/until.ts';

const storage = process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded storage';
const MB = 1024 * 1024;
const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

function upload(service: RunningService, headers: Record<string, string>, pdf: Buffer) {
  const form = new FormData();
  form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'report.pdf');
  return fetch(`${service.url}/v2/lab-reports`, { method: 'POST', headers, body: form });
}

describe(`a lab report near the size limit (${storage}, the served process's own heap limit)`, () => {
  it(
    '19 MB is accepted and read without the process dying; 21 MB is a 413 problem',
    { timeout: 300_000 },
    async () => {
      const environment = await childEnvironment();
      cleanups.push(() => environment.cleanup());
      const created = await runCli(
        ['developers', 'create', '--name', 'Large reports', '--environment', 'sandbox', '--json'],
        environment.env,
      );
      assert.equal(created.code, 0, created.stderr);
      const { dev_id: devId, api_key: apiKey } = JSON.parse(created.stdout) as {
        dev_id: string;
        api_key: string;
      };
      const headers = { 'dev-id': devId, 'x-api-key': apiKey };
      const service = await startService(environment.env);
      cleanups.push(() => service.stop('SIGKILL'));

      const large = await upload(service, headers, largePdf(19 * MB));
      const accepted = (await large.json()) as { upload_id?: string };
      assert.equal(large.status, 202, `${JSON.stringify(accepted)}\n${service.output()}`);
      assert.ok(accepted.upload_id);

      const tooLarge = await upload(service, headers, largePdf(21 * MB));
      assert.equal(tooLarge.status, 413);
      assert.match(tooLarge.headers.get('content-type') ?? '', /application\/problem\+json/);
      const problem = (await tooLarge.json()) as { detail: string };
      assert.match(problem.detail, /file: larger than the 20 MB limit/);

      // The stored 19 MB file is read back (the job) and the session ends, with the process alive.
      let status = 'processing';
      await until(
        'the large report to be read',
        async () => {
          const listed = await fetch(`${service.url}/v2/lab-reports?upload_id=${accepted.upload_id}`, {
            headers,
          });
          const body = (await listed.json()) as { sessions?: { current_status?: string }[] };
          const session = body.sessions?.[0];
          status = session?.current_status ?? 'processing';
          return status !== 'processing';
        },
        { timeoutMs: 180_000, intervalMs: 500, show: () => `status ${status}; output:\n${service.output()}` },
      );
      assert.equal(service.process.exitCode, null, service.output());
      assert.doesNotMatch(service.output(), /heap out of memory/i);
    },
  );
});

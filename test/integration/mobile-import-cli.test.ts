import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ChildEnvironment, childEnvironment, runCli, startService } from '../helpers/child-service.ts';
import { exportText, GENERATED_DAY } from '../helpers/apple-export.ts';
import { missingShared, sharedPath } from '../helpers/shared-reference.ts';

const SAMPLE_FILE = 'reference/mobile-samples/apple-health/apple-health-parser.export.zip';
const SAMPLE = sharedPath(SAMPLE_FILE);
/** A real export is a third-party file in the shared reference: the test reading it skips without it. */
const missingSample = missingShared(SAMPLE_FILE);

/**
 * `tributary import apple-health` through real processes: on its own (it runs the import itself,
 * with a progress bar) and beside a running server (whose workers run it while the command follows).
 */
describe('CLI: import apple-health', () => {
  let environment: ChildEnvironment;
  let devId: string;
  let apiKey: string;
  before(async () => {
    environment = await childEnvironment();
    const created = await runCli(
      ['developers', 'create', '--name', 'Importer', '--environment', 'sandbox', '--json'],
      environment.env,
    );
    assert.equal(created.code, 0, created.stderr);
    ({ dev_id: devId, api_key: apiKey } = JSON.parse(created.stdout) as { dev_id: string; api_key: string });
  });
  after(async () => {
    await environment?.cleanup();
  });

  test('imports a real export.zip with progress, creating the user by reference_id', async (t) => {
    if (missingSample) return t.skip(missingSample);
    const result = await runCli(
      ['import', 'apple-health', SAMPLE, '--dev-id', devId, '--reference-id', 'cli-1', '--json'],
      environment.env,
    );
    assert.equal(result.code, 0, result.stderr);
    const final = JSON.parse(result.stdout) as {
      status: string;
      records_read: number;
      bytes_read: number;
      total_bytes: number;
    };
    assert.equal(final.status, 'completed');
    assert.equal(final.records_read, 8);
    assert.equal(final.bytes_read, final.total_bytes);
    assert.match(result.stderr, /\[#{30}\] 100%/);

    const usage = await runCli(['import', 'apple-health', SAMPLE, '--dev-id', devId], environment.env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /exactly one of --user-id and --reference-id/);
  });

  test('beside a running server: its workers import, the data is readable at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tributary-export-'));
    const file = join(dir, 'export.xml');
    writeFileSync(file, exportText({ days: 2, startDay: '2026-05-01' }));
    const server = await startService(environment.env);
    try {
      const result = await runCli(
        ['import', 'apple-health', file, '--dev-id', devId, '--reference-id', 'cli-2', '--json'],
        environment.env,
      );
      assert.equal(result.code, 0, result.stderr);
      const final = JSON.parse(result.stdout) as { status: string; user_id: string };
      assert.equal(final.status, 'completed');
      const response = await fetch(
        `${server.url}/v2/daily?user_id=${final.user_id}&start_date=2026-05-01&end_date=2026-05-03&to_webhook=false`,
        { headers: { 'dev-id': devId, 'x-api-key': apiKey } },
      );
      const days = ((await response.json()) as { data: { distance_data: { steps: number } }[] }).data;
      assert.deepEqual(
        days.map((day) => day.distance_data.steps),
        [GENERATED_DAY.steps, GENERATED_DAY.steps],
      );
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The package as it is published: `npm pack` (which builds dist/), the tarball installed into a
// scratch project outside the repository, then a program there imports it by name and uploads
// to a real Tributary, under Node 24 and, when the machine has one, Node 20; a TypeScript file
// there type-checks against the shipped declarations.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { olderNode, packTarball, run, scratchProject } from '../../../test/helpers/packed-package.ts';
import {
  createDeveloper,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../../../test/helpers/app.ts';
import { sdkToken } from '../../../test/helpers/mobile.ts';

const PACKAGE_DIR = new URL('../', import.meta.url).pathname;
const ROOT = new URL('../../../', import.meta.url).pathname;
const NODE_24 = join(ROOT, 'node_modules/.bin/node');
const TSC = join(ROOT, 'node_modules/.bin/tsc');

const PROGRAM = `import { MemoryStorage, TributaryClient } from '@tributary/sdk-client';
const client = await TributaryClient.create({
  baseUrl: process.env.TRIBUTARY_URL,
  platform: 'APPLE',
  storage: new MemoryStorage(),
  maxBatchItems: 2,
});
const userId = await client.connect(process.env.TRIBUTARY_TOKEN, { referenceId: 'packed' });
const records = [0, 1, 2].map((i) => ({
  uuid: 'packed-' + process.version + '-' + i,
  type: 'HKQuantityTypeIdentifierStepCount',
  unit: 'count',
  value: 10,
  sourceName: 'Apple Watch',
  startDate: new Date(Date.UTC(2026, 10, 20, 5, i)).toISOString(),
  endDate: new Date(Date.UTC(2026, 10, 20, 5, i + 1)).toISOString(),
}));
await client.enqueue({ records });
const flushed = await client.flush();
console.log(JSON.stringify({ node: process.version, userId, connected: client.connected, ...flushed }));
`;

const TYPED = `import { TributaryClient, NotConnectedError, type FlushResult, type KeyValueStorage } from '@tributary/sdk-client';
const storage: KeyValueStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {} };
export async function upload(token: string): Promise<FlushResult> {
  const client = await TributaryClient.create({ baseUrl: 'https://health.example.com', platform: 'HEALTH_CONNECT', storage });
  await client.connect(token);
  await client.enqueue({ records: [{ id: 'x' }] });
  return client.flush();
}
export const isNotConnected = (error: unknown) => error instanceof NotConnectedError;
// @ts-expect-error: the platform is one of three names
await TributaryClient.create({ baseUrl: 'x', platform: 'FITBIT' });
`;

describe('@tributary/sdk-client from its packed tarball', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let baseUrl: string;
  let scratch: string;
  let tarball: string;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'tributary-sdk-client-packed-'));
    const packed = await packTarball(PACKAGE_DIR, scratch);
    tarball = packed.tarball;
    assert.deepEqual(packed.shipped, [
      'LICENSE',
      'README.md',
      'dist/index.d.ts',
      'dist/index.js',
      'package.json',
    ]);

    const { installed } = await scratchProject(scratch, tarball, {
      'upload.mjs': PROGRAM,
      'typed.ts': TYPED,
    });
    assert.equal(installed.code, 0, installed.stderr);

    service = await startTestService({ env: { MOBILE_UPLOAD_PENDING_MAX: '10000' } });
    developer = await createDeveloper(service.ctx);
    baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await service?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const project = () => join(scratch, 'app');

  async function uploadWith(node: string) {
    const token = await sdkToken(service.app, developer);
    const result = await run(node, ['upload.mjs'], project(), {
      TRIBUTARY_URL: baseUrl,
      TRIBUTARY_TOKEN: token,
    });
    assert.equal(result.code, 0, result.stderr);
    const output = JSON.parse(result.stdout) as Record<string, unknown>;
    assert.match(String(output.userId), /^[0-9a-f-]{36}$/);
    assert.equal(output.connected, true);
    assert.deepEqual(
      { batches: output.batches, items: output.items, pending: output.pending },
      {
        batches: 2,
        items: 3,
        pending: 0,
      },
    );
    return output;
  }

  test('installed by name, it connects and uploads under Node 24', async () => {
    const output = await uploadWith(NODE_24);
    assert.match(String(output.node), /^v24\./);
  });

  test('the same under Node 20 (or the older Node this machine has)', async (t) => {
    const older = olderNode(18);
    if (!older) return t.skip('no Node from 18 to 23 on this machine (/usr/bin/node, /usr/local/bin/node)');
    const output = await uploadWith(older.path);
    assert.match(String(output.node), new RegExp(`^v${older.major}\\.`));
  });

  test('a TypeScript program type-checks against the shipped declarations', async () => {
    assert.ok(readdirSync(join(project(), 'node_modules/@tributary/sdk-client/dist')).includes('index.d.ts'));
    const checked = await run(NODE_24, [TSC, '-p', 'tsconfig.json'], project());
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
  });
});

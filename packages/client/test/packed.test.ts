// The package as it is published: `npm pack` (which generates the types from the OpenAPI document
// and builds dist/), the tarball installed into a scratch project outside the repository (its
// dependency, openapi-fetch, and that one's, packed from the repository's node_modules), then
// programs there import it by name: one connects a sandbox user, reads data and meets a
// problem+json through the typed client against a real Tributary over a socket; another verifies
// a webhook that Tributary really delivered, and refuses it tampered. Both under Node 24 and, when
// the machine has one, Node 20. A TypeScript file there type-checks against the shipped
// declarations, and a wrong path, parameter or field does not; the README's examples compile as
// written.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  errorsOf,
  olderNode,
  packTarball,
  run,
  type Run,
  scratchProject,
  typeCheck,
  typeScriptBlocks,
  writeReadmeExamples,
} from '../../../test/helpers/packed-package.ts';
import {
  createDeveloper,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../../../test/helpers/app.ts';
import { connectSandboxUser } from '../../../test/helpers/connections.ts';
import { call, setUrl } from '../../../test/helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/helpers/webhook-receiver.ts';

const PACKAGE_DIR = new URL('../', import.meta.url).pathname;
const ROOT = new URL('../../../', import.meta.url).pathname;
const NODE_24 = join(ROOT, 'node_modules/.bin/node');
const TSC = join(ROOT, 'node_modules/.bin/tsc');

const PROGRAM = `import { createTributaryClient, unwrap, TributaryApiError } from '@tributary/client';
const client = createTributaryClient({
  baseUrl: process.env.TRIBUTARY_URL,
  devId: process.env.TRIBUTARY_DEV_ID,
  apiKey: process.env.TRIBUTARY_API_KEY,
});
// A new user through the sandbox provider: a body and a query, typed.
const created = await unwrap(client.POST('/v2/auth/authenticateUser', {
  params: { query: { resource: 'SANDBOX' } },
  body: { reference_id: 'packed-' + process.version },
}));
// The connected one the test made, by its reference_id, then its data.
const found = await unwrap(client.GET('/v2/userInfo', { params: { query: { reference_id: 'packed' } } }));
// One user_id answers one user; a reference_id answers every user with it.
const users = Array.isArray(found) ? found : [found.user];
const userId = users[0].user_id;
const end = Math.floor(Date.now() / 1000);
const activity = await unwrap(client.GET('/v2/activity', {
  params: { query: { user_id: userId, start_date: end - 30 * 86400, end_date: end, to_webhook: false } },
}));
// An error answer: a typed problem in \`error\`, thrown as TributaryApiError by unwrap.
const missing = await client.GET('/v2/userInfo', {
  params: { query: { user_id: '8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41' } },
});
let thrown = null;
try {
  await unwrap(client.GET('/v2/userInfo', { params: { query: { user_id: '8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41' } } }));
} catch (error) {
  thrown = error instanceof TributaryApiError ? error.status : String(error);
}
console.log(JSON.stringify({
  node: process.version,
  created: { status: created.status, user_id: created.user_id, auth_url: typeof created.auth_url },
  userId,
  provider: users[0].provider,
  activity: { type: activity.type, records: activity.data.length, user: activity.user.user_id },
  missing: { status: missing.response.status, problem: missing.error?.status, title: missing.error?.title },
  thrown,
}));
`;

const VERIFY = `import { readFileSync } from 'node:fs';
import { constructWebhookEvent, verifyServiceSignature, verifyStandardWebhook } from '@tributary/client/webhooks';
const { body, headers, secret } = JSON.parse(readFileSync('delivery.json', 'utf8'));
const now = new Date(Number(headers['webhook-timestamp']) * 1000);
const tampered = body.replace('"healthcheck"', '"HEALTHCHECK"');
let refused = null;
try {
  await constructWebhookEvent(tampered, headers, { secret, now });
} catch (error) {
  refused = error.name;
}
console.log(JSON.stringify({
  node: process.version,
  standard: await verifyStandardWebhook(body, headers, { secret, now }),
  service: await verifyServiceSignature(body, headers, { secret, now }),
  type: (await constructWebhookEvent(body, headers, { secret, now })).type,
  tamperedStandard: await verifyStandardWebhook(tampered, headers, { secret, now }),
  tamperedService: await verifyServiceSignature(tampered, headers, { secret, now }),
  wrongSecret: await verifyStandardWebhook(body, headers, { secret: secret.slice(0, -8) + 'AAAAAAA=', now }),
  refused,
}));
`;

const TYPED = `import {
  createTributaryClient,
  unwrap,
  type Problem,
  type WebhookEventType,
  type WebhookPayload,
  type paths,
} from '@tributary/client';
const client = createTributaryClient({ baseUrl: 'https://health.example.com', devId: 'd', apiKey: 'k' });
export async function firstUser(referenceId: string): Promise<string> {
  const found = await unwrap(client.GET('/v2/userInfo', { params: { query: { reference_id: referenceId } } }));
  return Array.isArray(found) ? (found[0]?.user_id ?? '') : found.user.user_id;
}
export async function problemOf(userId: string): Promise<Problem | undefined> {
  const { error } = await client.GET('/v2/userInfo', { params: { query: { user_id: userId } } });
  return error;
}
export const eventType: WebhookEventType = 'deauth';
export type Deauth = WebhookPayload<'deauth'>;
export type Paths = keyof paths;
// @ts-expect-error: no such path in the document
void client.GET('/v2/no-such-path');
// @ts-expect-error: start_date is a required parameter of the activity read
void client.GET('/v2/activity', { params: { query: { user_id: 'x' } } });
// @ts-expect-error: reference_id is a string
void client.POST('/v2/auth/authenticateUser', { params: { query: { resource: 'SANDBOX' } }, body: { reference_id: 42 } });
// @ts-expect-error: not an event type Tributary sends
export const notAnEvent: WebhookEventType = 'no_such_event';
`;

describe('@tributary/client from its packed tarball', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;
  let baseUrl: string;
  let scratch: string;
  let tarball: string;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'tributary-client-packed-'));
    const packed = await packTarball(PACKAGE_DIR, scratch);
    tarball = packed.tarball;
    assert.deepEqual(packed.shipped, [
      'LICENSE',
      'README.md',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/schema.d.ts',
      'dist/schema.js',
      'dist/webhooks.d.ts',
      'dist/webhooks.js',
      'package.json',
    ]);

    const { project, installed } = await scratchProject(scratch, tarball, {
      'client.mjs': PROGRAM,
      'verify.mjs': VERIFY,
      'typed.ts': TYPED,
    });
    assert.equal(installed.code, 0, installed.stderr);

    service = await startTestService();
    developer = await createDeveloper(service.ctx);
    baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' });
    await connectSandboxUser(service.app, developer, { referenceId: 'packed' });
    // A real delivery for the verification program: the test event, as the receiver got it.
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
    assert.equal((await call(service, developer, 'POST', '/v2/webhook/test')).status, 202);
    await receiver.waitFor(
      (received) => received.some((each) => each.body.includes('"healthcheck"')),
      'the test event',
    );
    const delivery = receiver.received.find((each) => each.body.includes('"healthcheck"'));
    writeFileSync(
      join(project, 'delivery.json'),
      JSON.stringify({ body: delivery!.body, headers: delivery!.headers, secret: developer.webhookSecret }),
    );
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const project = () => join(scratch, 'app');

  async function useWith(node: string) {
    const result = await run(node, ['client.mjs'], project(), {
      TRIBUTARY_URL: baseUrl,
      TRIBUTARY_DEV_ID: developer.devId,
      TRIBUTARY_API_KEY: developer.apiKey,
    });
    assert.equal(result.code, 0, result.stderr);
    const output = JSON.parse(result.stdout) as {
      node: string;
      created: { status: string; user_id: string; auth_url: string };
      userId: string;
      provider: string;
      activity: { type: string; records: number; user: string };
      missing: { status: number; problem: number; title: string };
      thrown: unknown;
    };
    const said = result.stdout;
    assert.equal(output.created.status, 'success', said);
    assert.match(output.created.user_id, /^[0-9a-f-]{36}$/, said);
    assert.equal(output.created.auth_url, 'string', said);
    assert.equal(output.provider, 'SANDBOX', said);
    assert.equal(output.activity.type, 'activity', said);
    assert.equal(output.activity.user, output.userId, said);
    assert.ok(output.activity.records > 0, `the sandbox user has activities in the last 30 days: ${said}`);
    assert.deepEqual(output.missing, { status: 404, problem: 404, title: 'not found' }, said);
    assert.equal(output.thrown, 404, said);
    const stored = await service.ctx.db
      .selectFrom('connections')
      .select('reference_id')
      .where('id', '=', output.created.user_id)
      .executeTakeFirst();
    assert.equal(
      stored?.reference_id,
      `packed-${output.node}`,
      'the user the program created is in the store',
    );
    return output;
  }

  async function verifyWith(node: string) {
    const result = await run(node, ['verify.mjs'], project());
    assert.equal(result.code, 0, result.stderr);
    const output = JSON.parse(result.stdout) as Record<string, unknown>;
    assert.deepEqual(output.standard, { valid: true });
    assert.deepEqual(output.service, { valid: true });
    assert.equal(output.type, 'healthcheck');
    assert.deepEqual(output.tamperedStandard, { valid: false, reason: 'no matching signature' });
    assert.deepEqual(output.tamperedService, { valid: false, reason: 'no matching signature' });
    assert.equal((output.wrongSecret as { valid: boolean }).valid, false);
    assert.equal(output.refused, 'WebhookVerificationError');
    return output;
  }

  test('installed by name, it creates a sandbox user, reads data and reports a problem under Node 24', async () => {
    const output = await useWith(NODE_24);
    assert.match(output.node, /^v24\./);
  });

  test('installed by name, it verifies a real delivery and refuses a tampered one under Node 24', async () => {
    assert.match(String((await verifyWith(NODE_24)).node), /^v24\./);
  });

  test('the same under Node 20 (or the older Node this machine has)', async (t) => {
    const older = olderNode(20);
    if (!older) return t.skip('no Node from 20 to 23 on this machine (/usr/bin/node, /usr/local/bin/node)');
    assert.match((await useWith(older.path)).node, new RegExp(`^v${older.major}\\.`));
    assert.match(String((await verifyWith(older.path)).node), new RegExp(`^v${older.major}\\.`));
  });

  /**
   * typed.ts and the README's examples, type-checked in one tsc run (test/helpers/packed-package.ts
   * typeCheck), made by whichever of the two tests below comes first; each judges its own files.
   */
  let checked: Promise<{ blocks: string[]; readme: string[]; result: Run }> | undefined;
  const consumersChecked = () =>
    (checked ??= (async () => {
      const blocks = typeScriptBlocks(readFileSync(join(PACKAGE_DIR, 'README.md'), 'utf8'));
      // What the examples take from Node: its environment variables.
      const prelude = 'declare const process: { env: Record<string, string | undefined> };';
      const readme = writeReadmeExamples(project(), blocks, prelude);
      const result = await typeCheck(NODE_24, TSC, project(), ['typed.ts', ...readme]);
      return { blocks, readme, result };
    })());

  test('a TypeScript program type-checks against the shipped declarations (and a wrong path or field does not)', async () => {
    assert.ok(readdirSync(join(project(), 'node_modules/@tributary/client/dist')).includes('schema.d.ts'));
    const { result } = await consumersChecked();
    assert.equal(errorsOf(result, ['typed.ts']), '');
  });

  test('the README’s examples compile as written against the shipped declarations', async () => {
    const { blocks, readme, result } = await consumersChecked();
    assert.equal(blocks.length, 2, 'the README has its two examples (calling the API, verifying webhooks)');
    assert.equal(errorsOf(result, readme), '', readme.join(', '));
  });
});

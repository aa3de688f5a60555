// The provider HTTP client's streamed lists (`items`) against a real local server that writes its
// answer in pieces: items arrive as the body does (the first before the last byte is sent), a
// body cut off part way or not a list fails the iteration with a ProviderDataError (never an
// unhandled error), an `absentOn` status is null, an empty body no items. Also the scanner
// itself (provider-kit/json-items.ts) on the shapes JSON allows.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/core/config.ts';
import { createProviderCatalog, type ResolvedProvider } from '../../src/provider-access/catalog.ts';
import { createProviderHttp } from '../../src/provider-access/http-client.ts';
import { ProviderDataError } from '../../src/provider-kit/data-source.ts';
import { JsonItemsError, jsonListItems } from '../../src/provider-kit/json-items.ts';

const DECLARED = 'https://api.ouraring.com/v2/usercollection';

describe('provider HTTP client: a JSON list read item by item', () => {
  let baseUrl: string;
  let provider: ResolvedProvider;
  /** Per path: what the server does with the response. */
  const answers = new Map<string, (response: ServerResponse) => void>();
  let release: () => void = () => {};
  const server = createServer((request, response) => {
    const answer = answers.get(new URL(request.url ?? '/', 'http://x').pathname);
    if (answer) answer(response);
    else response.writeHead(404).end('{}');
  });

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const config = loadConfig({
      DATA_DIR: '/nonexistent',
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      OURA_CLIENT_ID: 'id',
      OURA_CLIENT_SECRET: 'secret',
      OURA_BASE_URL: baseUrl,
    });
    provider = createProviderCatalog(config).get('OURA') as ResolvedProvider;
  });
  after(() => {
    release();
    server.closeAllConnections();
    server.close();
  });

  const http = () =>
    createProviderHttp({
      provider,
      userId: 'user-1',
      session: { current: async () => 'token', rejected: async () => 'token', failed: async () => {} },
      budget: { acquire: async () => null, pause: async () => {} },
      settings: { timeoutMs: 10_000, retries: 0, baseDelayMs: 1, maxWaitSeconds: 1, maxAnswerBytes: 2 ** 20 },
      clock: { now: () => new Date() },
    });
  const collect = async (items: AsyncIterable<unknown> | null) => {
    const out: unknown[] = [];
    for await (const item of items ?? []) out.push(item);
    return out;
  };

  test('items arrive while the body is still being sent', async () => {
    const held = new Promise<void>((resolve) => (release = resolve));
    answers.set('/v2/usercollection/slow', (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('[{"id":1,"text":"a ] , \\" b"},');
      void held.then(() => response.end('{"id":2}]'));
    });
    const items = await http().items({ url: `${DECLARED}/slow` });
    const iterator = items![Symbol.asyncIterator]();
    // The first item is read although the server has not finished (it waits for `release`).
    assert.deepEqual((await iterator.next()).value, { id: 1, text: 'a ] , " b' });
    release();
    assert.deepEqual((await iterator.next()).value, { id: 2 });
    assert.equal((await iterator.next()).done, true);
  });

  test('a body cut off part way fails the iteration with a ProviderDataError', async () => {
    answers.set('/v2/usercollection/cut', (response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
      response.write('[{"id":1},{"id":2,"samp');
      setTimeout(() => response.destroy(), 20);
    });
    const items = await http().items({ url: `${DECLARED}/cut` });
    const seen: unknown[] = [];
    await assert.rejects(
      async () => {
        for await (const item of items!) seen.push(item);
      },
      (error) => error instanceof ProviderDataError && error.kind === 'unavailable',
    );
    assert.deepEqual(seen, [{ id: 1 }], 'the items before the cut were read');
  });

  test('an answer that is not a list is a ProviderDataError; absentOn is null; empty is none', async () => {
    answers.set('/v2/usercollection/object', (response) => response.writeHead(200).end('{"data":[1]}'));
    answers.set('/v2/usercollection/empty', (response) => response.writeHead(200).end(''));
    await assert.rejects(
      collect(await http().items({ url: `${DECLARED}/object` })),
      (error) => error instanceof ProviderDataError && /not a JSON list/.test(error.message),
    );
    assert.equal(await http().items({ url: `${DECLARED}/missing`, absentOn: [404] }), null);
    assert.deepEqual(await collect(await http().items({ url: `${DECLARED}/empty` })), []);
  });

  test('the scanner: every JSON shape of an item, split anywhere; malformed lists refused', async () => {
    const list = [{ a: [1, { b: 'x]}"\\' }] }, 'a,b', -1.5e3, true, null, [], { é: 'ü' }];
    const text = Buffer.from(` ${JSON.stringify(list)} \n`);
    // Every split point of the body: the same items.
    for (let at = 0; at <= text.length; at++) {
      const chunks = async function* () {
        yield text.subarray(0, at);
        yield text.subarray(at);
      };
      assert.deepEqual(await collect(jsonListItems(chunks())), list, `split at ${at}`);
    }
    const bytes = (value: string) =>
      (async function* () {
        yield Buffer.from(value);
      })();
    for (const bad of ['[1,2', '[1,,2]', '[1,]', '[1 2]', '[1] x', '[{bad}]', '"text"'])
      await assert.rejects(collect(jsonListItems(bytes(bad))), JsonItemsError, bad);
    assert.deepEqual(await collect(jsonListItems(bytes('null'))), []);
  });
});

/**
 * The provider HTTP client against a server whose answers never end, meant to be its own process
 * under a heap limit (test/integration/provider-answer-cap.test.ts): with the answer cap at
 * CAP_MB, every way of reading an answer — a JSON answer (with and without a declared length), a
 * file, an error's text, a list read whole (a provider with its own parser), one item of a list
 * read item by item, a token endpoint's answer — must fail that request with a ProviderDataError
 * (or OAuthFlowError) naming the provider and the limit, and the next request must still be
 * answered. Without the cap, an endless body is read until the deadline (gigabytes at loopback
 * speed) or fills the heap. Prints one JSON line: per case, what the read ended with, and the
 * process's peak RSS.
 *
 *   node_modules/.bin/node --max-old-space-size=96 test/helpers/oversized-answer-run.ts CAP_MB
 */
import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/core/config.ts';
import { createProviderCatalog, type ResolvedProvider } from '../../src/provider-access/catalog.ts';
import { createProviderHttp } from '../../src/provider-access/http-client.ts';
import { exchangeAuthorizationCode } from '../../src/provider-access/oauth.ts';
import { requestRefresh } from '../../src/provider-access/oauth-refresh.ts';
import { providerHttpSettings } from '../../src/provider-access/settings.ts';
import type { ProviderRuntime } from '../../src/provider-kit/types.ts';

const CAP_MB = process.argv[2] ?? '1';
const FILLER = Buffer.alloc(64 * 1024, 'x');

/** Writes `head`, then filler for as long as the client reads (with backpressure), never ending. */
function endless(
  response: ServerResponse,
  status: number,
  head: string,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.write(head);
  const more = () => {
    while (!response.destroyed && response.write(FILLER));
    if (!response.destroyed) response.once('drain', more);
  };
  response.on('error', () => {});
  more();
}

const answers: Record<string, (response: ServerResponse) => void> = {
  // A JSON answer that is one endless string.
  '/v2/usercollection/json': (response) => endless(response, 200, '{"data":"'),
  // The same, but its length declared up front (refused before a byte of it is read).
  '/v2/usercollection/declared': (response) =>
    endless(response, 200, '{"data":"', { 'content-length': String(10 * 2 ** 30) }),
  '/v2/usercollection/file': (response) => endless(response, 200, 'FIT'),
  '/v2/usercollection/error': (response) => endless(response, 500, '{"message":"'),
  // A list whose second item never ends.
  '/v2/usercollection/items': (response) => endless(response, 200, '[{"id":1},{"samples":"'),
  '/v2/usercollection/fine': (response) => response.writeHead(200).end('{"data":[{"id":1}]}'),
  '/oauth/token': (response) => endless(response, 200, '{"access_token":"'),
};
const server = createServer((request, response) => {
  const answer = answers[new URL(request.url ?? '/', 'http://x').pathname];
  request.resume();
  if (answer) answer(response);
  else response.writeHead(404).end('{}');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const config = loadConfig({
  DATA_DIR: '/nonexistent',
  ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  OURA_CLIENT_ID: 'id',
  OURA_CLIENT_SECRET: 'secret',
  OURA_BASE_URL: baseUrl,
  PROVIDER_HTTP_MAX_ANSWER_MB: CAP_MB,
  PROVIDER_HTTP_TIMEOUT_MS: '20000',
});
const provider = createProviderCatalog(config).get('OURA') as ResolvedProvider;
const settings = config.settings.get(providerHttpSettings);
const http = createProviderHttp({
  provider,
  userId: 'user-1',
  session: { current: async () => 'token', rejected: async () => 'token', failed: async () => {} },
  budget: { acquire: async () => null, pause: async () => {} },
  settings: { ...settings, retries: 1, baseDelayMs: 1 },
  clock: { now: () => new Date() },
});
// A provider that parses its answers itself reads a list whole, not item by item.
const parsing = createProviderHttp({
  provider: {
    ...provider,
    connector: { ...provider.connector!, api: { ...provider.connector!.api!, parseJson: JSON.parse } },
  },
  userId: 'user-1',
  session: { current: async () => 'token', rejected: async () => 'token', failed: async () => {} },
  budget: { acquire: async () => null, pause: async () => {} },
  settings: { ...settings, retries: 1, baseDelayMs: 1 },
  clock: { now: () => new Date() },
});
const runtime = { config, clock: { now: () => new Date() } } as unknown as ProviderRuntime;
const url = (path: string) => `https://api.ouraring.com/v2/usercollection/${path}`;

/** How `read` ended: its error's class and message, or `ok`. */
async function outcome(read: () => Promise<unknown>): Promise<{ error: string; message: string } | 'ok'> {
  try {
    const answer = await read();
    if (answer && typeof answer === 'object' && Symbol.asyncIterator in answer)
      for await (const _ of answer as AsyncIterable<unknown>);
    return 'ok';
  } catch (error) {
    return { error: (error as Error).name, message: (error as Error).message };
  }
}

// Answers are read outside the V8 heap (buffers) until decoded: RSS shows an uncapped read.
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
const results: Record<string, unknown> = {};
try {
  results.json = await outcome(() => http.json({ url: url('json') }));
  results.declared = await outcome(() => http.json({ url: url('declared') }));
  results.file = await outcome(() => http.bytes({ url: url('file') }));
  results.error = await outcome(() => http.json({ url: url('error') }));
  results.items = await outcome(() => http.items({ url: url('items') }));
  results.wholeList = await outcome(() => parsing.items({ url: url('items') }));
  const tokenProvider = {
    ...provider,
    oauth: { ...provider.oauth!, tokenUrl: `${baseUrl}/oauth/token` },
  } as ResolvedProvider;
  results.exchange = await outcome(() =>
    exchangeAuthorizationCode(tokenProvider, runtime, {
      code: 'code',
      codeVerifier: null,
      redirectUri: `${baseUrl}/back`,
    }),
  );
  const refresh = await requestRefresh(tokenProvider, runtime, 'refresh-token');
  results.refresh = refresh.kind === 'ok' ? 'ok' : { error: refresh.kind, message: refresh.reason };
  results.afterwards = await outcome(() => http.json({ url: url('fine') }));
  results.peakRssMb = Math.round(peakRss / 2 ** 20);
  console.log(JSON.stringify(results));
} finally {
  clearInterval(sampler);
  server.closeAllConnections();
  server.close();
}

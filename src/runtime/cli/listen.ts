import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../../core/config.ts';
import { AppError } from '../../core/errors.ts';
import { verifyServiceSignature, verifyStandardWebhook } from '../../features/delivery/signing.ts';
import { currentSession } from './session.ts';
import { UsageError } from './output.ts';

export const USAGE = `usage:
  tributary listen [--forward-to URL] [--json] [--count N] [--host H] [--port P]
                   [--api-url URL] [--dev-id D] [--api-key K] [--secret S] [--rotate-secret]

Receives a sandbox developer's webhooks on this machine, as \`stripe listen\` does: points the
developer's webhook destination at a listener here, verifies both signatures of every delivery
(Standard Webhooks and service-signature) with the developer's secret, and prints each event.
With --forward-to, each verified delivery goes on to your endpoint, headers and body unchanged,
and Tributary gets your endpoint's status (so it retries what you fail). A delivery that does not
verify answers 400, is printed as such and is not forwarded. --json prints one JSON object per
event on stdout (every other message goes to stderr). Runs until Ctrl-C, or until --count events
have arrived (exit 1 if one of them did not verify), then points the destination back at the URL
it had, if any.

The listener takes --host (127.0.0.1) and --port (any free one); the server must reach it there.
Credentials: --dev-id, --api-key and --secret, or else DATA_DIR/sandbox-credentials.json, which
\`tributary serve\` writes for the sandbox developer it creates. --rotate-secret makes a new signing secret first and
verifies with it (for a developer whose secret was rotated since). The API is PUBLIC_URL (or
--api-url). Production keys (sk_live_…) are refused: a listener is for sandbox developers.`;

/** How long a forwarded delivery may take before Tributary is told it failed (its own limit is longer). */
const FORWARD_TIMEOUT_MS = 15_000;
/** Headers of a delivery that a receiver needs; the rest (host, connection, …) belong to the hop. */
const FORWARDED_HEADERS = [
  'content-type',
  'user-agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'service-signature',
  'service-reference',
];
/** A body printed for people stops here; --json always carries all of it. */
const MAX_PRINTED_LINES = 40;

type Credentials = { devId: string; apiKey: string; secret?: string };

export type ReceivedEvent = {
  received_at: string;
  webhook_id: string | null;
  type: string | null;
  verified: boolean;
  /** Why a delivery did not verify (each scheme's reason), or null. */
  problem: string | null;
  forward: { url: string; status: number | null; error: string | null } | null;
  event: unknown;
};

function credentialsFrom(
  values: { 'dev-id'?: string; 'api-key'?: string; secret?: string },
  dataDir: string,
): Credentials {
  const devId = values['dev-id'];
  const apiKey = values['api-key'];
  const secret = values.secret;
  if (devId && apiKey) return { devId, apiKey, ...(secret ? { secret } : {}) };
  if (devId || apiKey) throw new UsageError(`give both --dev-id and --api-key (or neither)\n${USAGE}`);
  const file = join(dataDir, 'sandbox-credentials.json');
  let saved: { dev_id?: unknown; api_key?: unknown; webhook_secret?: unknown };
  try {
    saved = JSON.parse(readFileSync(file, 'utf8')) as typeof saved;
  } catch {
    throw new UsageError(
      `no credentials: pass --dev-id and --api-key (and --secret), or start the server once so it writes ${file}\n${USAGE}`,
    );
  }
  if (typeof saved.dev_id !== 'string' || typeof saved.api_key !== 'string')
    throw new UsageError(`${file} has no dev_id and api_key`);
  return {
    devId: saved.dev_id,
    apiKey: saved.api_key,
    ...(secret
      ? { secret }
      : typeof saved.webhook_secret === 'string'
        ? { secret: saved.webhook_secret }
        : {}),
  };
}

/** The developer's REST API, as the developer's own app would call it. */
function apiClient(apiUrl: string, credentials: Credentials) {
  return async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${apiUrl}${path}`, {
        method,
        headers: {
          'dev-id': credentials.devId,
          'x-api-key': credentials.apiKey,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new AppError(
        'upstream_unavailable',
        `cannot reach Tributary at ${apiUrl} (${cause}); is it running? (--api-url or PUBLIC_URL names it)`,
      );
    }
    const text = await response.text();
    if (!response.ok) {
      let detail = text;
      try {
        detail = (JSON.parse(text) as { detail?: string }).detail ?? text;
      } catch {
        // not problem+json: the text as it came
      }
      throw new AppError('unprocessable', `${method} ${path} answered ${response.status}: ${detail}`);
    }
    return JSON.parse(text) as T;
  };
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

const firstHeader = (headers: IncomingHttpHeaders, name: string): string | null => {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
};

/** Both schemes must verify: Tributary signs every delivery with both, so one failing is a fault. */
export function verifyDelivery(
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  secret: string,
): { verified: boolean; problem: string | null } {
  const standard = verifyStandardWebhook({ rawBody, headers, secret });
  const service = verifyServiceSignature({ rawBody, headers, secret });
  const problems = [
    ...(standard.valid ? [] : [`webhook-signature: ${standard.reason}`]),
    ...(service.valid ? [] : [`service-signature: ${service.reason}`]),
  ];
  return { verified: problems.length === 0, problem: problems.length ? problems.join('; ') : null };
}

async function forward(url: string, rawBody: Buffer, headers: IncomingHttpHeaders) {
  const passed: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = firstHeader(headers, name);
    if (value !== null) passed[name] = value;
  }
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: passed,
      body: new Uint8Array(rawBody),
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    return { url, status: response.status, error: null };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    return { url, status: null, error: String(cause) };
  }
}

/** `21:04:05  healthcheck  msg_…  verified  → 200`, then the event, indented. */
export function describeEvent(received: ReceivedEvent): string {
  const time = received.received_at.slice(11, 19);
  const outcome = received.verified ? 'verified' : `NOT VERIFIED (${received.problem})`;
  const forwarded = received.forward
    ? `  → ${received.forward.url} ${received.forward.status ?? `failed: ${received.forward.error}`}`
    : '';
  const head = `${time}  ${received.type ?? '(no type)'}  ${received.webhook_id ?? '(no webhook-id)'}  ${outcome}${forwarded}`;
  const body = (
    typeof received.event === 'string' ? received.event : JSON.stringify(received.event, null, 2)
  ).split('\n');
  const shown = body.slice(0, MAX_PRINTED_LINES).map((line) => `    ${line}`);
  if (body.length > MAX_PRINTED_LINES)
    shown.push(`    … ${body.length - MAX_PRINTED_LINES} more lines (--json prints everything)`);
  return `${head}\n${shown.join('\n')}\n`;
}

/**
 * Puts the webhook back as the listener found it: its URL (disabled again if it was), or no URL at
 * all, so later events are held as before instead of failing against a listener that is gone.
 */
async function restoreDestination(
  call: ReturnType<typeof apiClient>,
  before: { url: string | null; enabled: boolean },
  listenerUrl: string,
  say: (text: string) => void,
) {
  // A listener that was stopped without this clean-up (killed) left its own URL: nothing to restore.
  const previous = before.url === listenerUrl ? null : before.url;
  const body = previous ? { url: previous, ...(before.enabled ? {} : { enabled: false }) } : { url: null };
  const done = previous
    ? `The webhook destination is ${previous} again${before.enabled ? '' : ' (disabled, as it was)'}.`
    : 'The webhook has no URL again, as before: events are held until one is set.';
  await call('PUT', '/v2/webhook', body).then(
    () => say(done),
    (error: unknown) =>
      say(
        `could not put the webhook destination back (${previous ?? 'no URL'}): ${(error as Error).message}; ` +
          `it still points at ${listenerUrl}, where nothing listens now`,
      ),
  );
}

export async function listenCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: false,
    options: {
      'forward-to': { type: 'string' },
      json: { type: 'boolean', default: false },
      count: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '0' },
      'api-url': { type: 'string' },
      'dev-id': { type: 'string' },
      'api-key': { type: 'string' },
      secret: { type: 'string' },
      'rotate-secret': { type: 'boolean', default: false },
    },
  });
  if (positionals.length > 0) throw new UsageError(USAGE);
  const count = values.count === undefined ? undefined : Number(values.count);
  if (count !== undefined && !(Number.isSafeInteger(count) && count > 0))
    throw new UsageError(`--count must be a whole number above 0, got "${values.count}"`);
  const port = Number(values.port);
  if (!Number.isSafeInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be a port number, got "${values.port}"`);
  const forwardTo = values['forward-to'];
  if (forwardTo !== undefined && !URL.canParse(forwardTo))
    throw new UsageError(`--forward-to must be an absolute URL, got "${forwardTo}"`);
  const apiUrl = (values['api-url'] ?? config.publicUrl).replace(/\/+$/, '');
  if (!URL.canParse(apiUrl)) throw new UsageError(`--api-url must be an absolute URL, got "${apiUrl}"`);

  const credentials = credentialsFrom(values, config.dataDir);
  if (credentials.apiKey.startsWith('sk_live_'))
    throw new UsageError('a production key (sk_live_…): listen points a sandbox developer’s webhook here');
  const call = apiClient(apiUrl, credentials);
  const session = currentSession();
  const say = (text: string) => session.stderr(`${text}\n`);

  // The key is checked (and the destination to restore read) before anything changes.
  const before = await call<{ url: string | null; enabled: boolean }>('GET', '/v2/webhook');
  let secret = credentials.secret;
  if (values['rotate-secret']) {
    secret = (await call<{ secret: string }>('POST', '/v2/webhook/rotate-secret')).secret;
    say(`Rotated the signing secret: ${secret} (the previous one still signs for 24 hours)`);
  }
  if (!secret)
    throw new UsageError(`no signing secret to verify with: pass --secret or --rotate-secret\n${USAGE}`);
  const verifyWith = secret;

  let received = 0;
  let unverified = 0;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const rawBody = await readBody(request);
    const { verified, problem } = verifyDelivery(rawBody, request.headers, verifyWith);
    let event: unknown = rawBody.toString('utf8');
    try {
      event = JSON.parse(rawBody.toString('utf8'));
    } catch {
      // printed as the text it is
    }
    const type =
      event && typeof event === 'object' && typeof (event as { type?: unknown }).type === 'string'
        ? (event as { type: string }).type
        : null;
    const forwarded = verified && forwardTo ? await forward(forwardTo, rawBody, request.headers) : null;
    const record: ReceivedEvent = {
      received_at: new Date().toISOString(),
      webhook_id: firstHeader(request.headers, 'webhook-id'),
      type,
      verified,
      problem,
      forward: forwarded,
      event,
    };
    if (values.json) session.stdout(`${JSON.stringify(record)}\n`);
    else session.stdout(describeEvent(record));
    const status = !verified ? 400 : forwarded ? (forwarded.status ?? 502) : 200;
    response.writeHead(status, { 'content-type': 'application/json' });
    // Counted once the answer is out, so stopping after the last one does not cut it off.
    response.end(JSON.stringify(verified ? { received: true } : { received: false, problem }), () => {
      received += 1;
      if (!verified) unverified += 1;
      if (count !== undefined && received >= count) finish();
    });
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      say(`could not handle a delivery: ${(error as Error).message}`);
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, values.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const listenerUrl = `http://${host}:${address.port}/`;

  const onSignal = () => finish();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const set = await call<{ replayed?: number }>('PUT', '/v2/webhook', { url: listenerUrl });
    say(
      `Ready: webhooks of ${credentials.devId} now go to ${listenerUrl}` +
        (forwardTo ? ` and on to ${forwardTo}` : '') +
        (set.replayed ? ` (${set.replayed} held events replayed)` : '') +
        (count === undefined
          ? '. Ctrl-C stops.'
          : `; stopping after ${count} event${count === 1 ? '' : 's'}.`),
    );
    await finished;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // Idle keep-alive sockets close now; a delivery still being answered gets a moment.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const cutOff = setTimeout(() => server.closeAllConnections(), 2_000);
    await closed;
    clearTimeout(cutOff);
    await restoreDestination(call, before, listenerUrl, say);
  }
  return unverified > 0 ? 1 : 0;
}

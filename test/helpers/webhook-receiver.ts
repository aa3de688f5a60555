import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from './until.ts';

/**
 * A real local webhook receiver (node:http on 127.0.0.1, a free port) for integration tests. It
 * records every request (headers, raw body, arrival time) and answers from a script: queued
 * responses are used in order, then the default. Every wait is bounded and says what it waited for.
 */
export type ReceivedRequest = {
  headers: IncomingHttpHeaders;
  /** The body as UTF-8 text (signatures are over the bytes: `raw`). */
  body: string;
  /** The body's bytes exactly as received (a binary body: a FIT file). */
  raw: Buffer;
  /** Date.now() when the request body had fully arrived. */
  receivedAt: number;
  /** Date.now() when the answer was sent (after any scripted delay). */
  answeredAt: number | null;
  answeredWith: number | null;
};

export type ScriptedResponse = {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
  body?: string;
};

export type WebhookReceiver = {
  url: string;
  received: ReceivedRequest[];
  /** Queues responses for the next requests, in order. */
  script(...responses: (ScriptedResponse | number)[]): void;
  /** The answer once the script is used up (default 200). */
  setDefault(response: ScriptedResponse | number): void;
  /** From now on every answer waits, however long, until `release()`: a receiver that is busy on command. */
  hold(): void;
  /** Sends every held answer (to requests whose connection is still open) and stops holding. */
  release(): void;
  /** Requests carrying this webhook-id. */
  byId(id: string): ReceivedRequest[];
  distinctIds(): Set<string>;
  waitFor(
    predicate: (received: ReceivedRequest[]) => boolean,
    description: string,
    timeoutMs?: number,
  ): Promise<void>;
  waitForCount(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
};

const asResponse = (value: ScriptedResponse | number): ScriptedResponse =>
  typeof value === 'number' ? { status: value } : value;

export async function startWebhookReceiver(options: { host?: string } = {}): Promise<WebhookReceiver> {
  const queue: ScriptedResponse[] = [];
  let fallback: ScriptedResponse = { status: 200 };
  const received: ReceivedRequest[] = [];
  let holding = false;
  let held: (() => void)[] = [];

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const entry: ReceivedRequest = {
        headers: request.headers,
        body: raw.toString('utf8'),
        raw,
        receivedAt: Date.now(),
        answeredAt: null,
        answeredWith: null,
      };
      received.push(entry);
      const answer = queue.shift() ?? fallback;
      const send = () => {
        if (response.destroyed) return;
        response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        response.end(answer.body ?? '');
        entry.answeredAt = Date.now();
        entry.answeredWith = answer.status;
      };
      if (holding) held.push(send);
      else if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 30_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;

  const receiver: WebhookReceiver = {
    url: `http://${host}:${port}/hooks`,
    received,
    script(...responses) {
      queue.push(...responses.map(asResponse));
    },
    setDefault(response) {
      fallback = asResponse(response);
    },
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      const waiting = held;
      held = [];
      for (const send of waiting) send();
    },
    byId(id) {
      return received.filter((entry) => entry.headers['webhook-id'] === id);
    },
    distinctIds() {
      return new Set(received.map((entry) => String(entry.headers['webhook-id'])));
    },
    async waitFor(predicate, description, timeoutMs) {
      await until(`webhook receiver: ${description}`, () => predicate(received), {
        intervalMs: 20,
        timeoutMs,
        show: () =>
          `received ${received.length} request(s): ` +
          received
            .slice(0, 20)
            .map((entry) => `${entry.headers['webhook-id']} -> ${entry.answeredWith ?? 'pending'}`)
            .join(', '),
      });
    },
    async waitForCount(count, timeoutMs) {
      await receiver.waitFor((list) => list.length >= count, `${count} request(s)`, timeoutMs);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/** Receivers started as a test needs them (`start`), closed together by `closeAll` in its `after`. */
export function webhookReceivers() {
  const started: WebhookReceiver[] = [];
  return {
    start: async () => {
      const receiver = await startWebhookReceiver();
      started.push(receiver);
      return receiver;
    },
    closeAll: async () => {
      for (const receiver of started) await receiver.close();
    },
  };
}

// The anchor of the webhook throughput ratio: the same signed POSTs the engine sends (Standard
// Webhooks and service signatures over the same body, one secret), to the same receiver, with a
// fixed number in flight, and nothing else: no database, no queue, no attempt log. Each slot sends
// its next request as soon as its previous one is answered.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { buildDeliveryHeaders, signingKey } from '../src/features/delivery/signing.ts';

export async function plainSignedPostLoop(options: {
  url: string;
  secret: string;
  body: string;
  total: number;
  inFlight: number;
  version: string;
}): Promise<{ perSecond: number; seconds: number }> {
  const url = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.inFlight });
  // Keys made once, as the engine makes them once per destination and batch.
  const secrets = [signingKey(options.secret)];
  let next = 0;
  const post = (id: string) =>
    new Promise<void>((resolve, reject) => {
      const headers = buildDeliveryHeaders({
        id,
        timestamp: Math.floor(Date.now() / 1000),
        rawBody: options.body,
        secrets,
        version: options.version,
        orderingTimestamp: new Date(),
      });
      const request = http.request(url, {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(options.body)) },
      });
      request.on('error', reject);
      request.on('response', (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 204 ? resolve() : reject(new Error(`HTTP ${response.statusCode}`)),
        );
      });
      request.end(options.body);
    });
  const slot = async () => {
    while (next < options.total) {
      const n = next++;
      await post(`plain_${n}_${performance.now()}`);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.inFlight }, slot));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { perSecond: options.total / seconds, seconds };
}

/**
 * The Garmin fake in a worker thread of its own (a V8 heap of its own), for runs that measure the
 * service's heap: what the fake builds to answer a pull is then not counted as the service's.
 * Messages in: `{ endpointUrl }`, `{ account }` (the next consent's account); each answered with
 * `{ ok: true }`. The first message out is `{ baseUrl, clientId, clientSecret }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startGarminFake } from '../fakes/garmin.ts';

const options = workerData as Parameters<typeof startGarminFake>[0];
const fake = await startGarminFake(options);
parentPort!.on('message', (message: { endpointUrl?: string; account?: string; close?: true }) => {
  if (message.endpointUrl) fake.endpointUrl = message.endpointUrl;
  if (message.account) fake.consent.account = message.account;
  if (message.close) {
    void fake.close().then(() => parentPort!.postMessage({ ok: true, closed: true }));
    return;
  }
  parentPort!.postMessage({ ok: true });
});
parentPort!.postMessage({ baseUrl: fake.baseUrl, clientId: fake.clientId, clientSecret: fake.clientSecret });

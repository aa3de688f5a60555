// The stream destination: NATS JetStream. Each event is one message on
// `<subject>.<event type>`, published with the event's id as `Nats-Msg-Id`, so the stream drops a
// second copy of a message it has already stored within its duplicate window: a retry after a
// lost acknowledgement, a replay or a batch a crashed worker sent again adds nothing. A publish
// counts as delivered only once JetStream acknowledges it as stored (PubAck). Tributary creates
// the stream when it is missing, with a 24-hour duplicate window (docs/destinations.md says why
// NATS JetStream rather than Redis Streams). Deduplication by Nats-Msg-Id within the stream's
// duplicate_window (2 minutes unless set): https://docs.nats.io/using-nats/developer/develop_jetstream/model_deep_dive
// ("Message Deduplication"); test/integration/destination-nats.test.ts shows it on nats-server.
//
// The URL is an address with credentials and nothing else (no query string, fragment or path);
// the host is resolved, checked and pinned when the client connects (destination-policy.ts
// `dialAddress`), and the servers a broker advertises for its cluster are not followed (they
// were never checked).
import { isIP } from 'node:net';
import type { NatsConnection, TlsOptions } from '@nats-io/transport-node';
import Type from 'typebox';
import { invalidParameter } from '../../../core/errors.ts';
import { checkHostAllowed, dialAddress } from '../destination-policy.ts';
import {
  addressUrlSetting,
  type DestinationKind,
  describeFailure,
  type KindResult,
  maskedUrl,
  settingsChecker,
  stringSetting,
} from './kind.ts';

// The NATS client (some sixty modules) is loaded by the first NATS destination that sends, not by
// every process as it starts: most deployments have none.
const natsClient = () => import('@nats-io/transport-node');
const jetStreamClient = () => import('@nats-io/jetstream');
export type NatsSettings = { url: string; subject: string; stream: string };

/** The duplicate window of a stream Tributary creates: a replay within a day is deduplicated by the broker. */
export const DUPLICATE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Subject tokens: no wildcards, whitespace or empty tokens (NATS subject rules). */
const SUBJECT = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
/** Stream names: no whitespace, `.`, `*`, `>`, path separators (JetStream naming rules). */
const STREAM = /^[A-Za-z0-9_-]{1,64}$/;

const HINTS = {
  subject: 'expected dot-separated tokens of letters, digits, _ and - (no wildcards)',
  stream: 'expected letters, digits, _ and - (at most 64)',
};

/** The settings of a nats destination as the API takes them (validation, OpenAPI and packages/client). */
export const NatsSettingsSchema = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'nats://user:password@host:4222 (or tls://): no path, query string or fragment',
      examples: ['nats://tributary:secret@nats.example.com:4222'],
    }),
    subject: Type.Optional(
      Type.String({
        pattern: SUBJECT.source,
        minLength: 1,
        maxLength: 200,
        description: 'Subject prefix; default tributary',
      }),
    ),
    stream: Type.Optional(
      Type.String({
        pattern: STREAM.source,
        minLength: 1,
        maxLength: 64,
        description: 'JetStream stream; default TRIBUTARY',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'NatsSettings',
    description: 'kind nats: one JetStream message per event',
  },
);

const checkSettings = settingsChecker(NatsSettingsSchema, { hints: HINTS });

export function classifyNatsError(error: unknown): KindResult['outcome'] {
  const text =
    `${(error as { code?: unknown })?.code ?? ''} ${(error as Error)?.message ?? ''}`.toLowerCase();
  // The server refuses this message whatever happens next: bigger than its max_payload.
  if (text.includes('max_payload') || text.includes('maximum payload') || text.includes('message size'))
    return 'rejected';
  // No stream for the subject (503 no responders), a timeout, a closed or refused connection,
  // a permission or a full stream the developer may fix: the retry schedule applies.
  return 'retry';
}

export const natsKind: DestinationKind<NatsSettings> = {
  kind: 'nats',

  async parse(input, { environment, resolve }) {
    const settings = checkSettings(input);
    const url = addressUrlSetting(settings, 'url', ['nats', 'tls'], { credentials: true });
    if (url.pathname !== '' && url.pathname !== '/')
      throw invalidParameter('settings.url', 'takes no path (nats://user:password@host:4222)');
    const subject =
      stringSetting(settings, 'subject', {
        pattern: SUBJECT,
        max: 200,
        hint: HINTS.subject,
      }) ?? 'tributary';
    const stream =
      stringSetting(settings, 'stream', {
        pattern: STREAM,
        max: 64,
        hint: HINTS.stream,
      }) ?? 'TRIBUTARY';
    const blocked = await checkHostAllowed(url.hostname, environment, resolve);
    if (blocked) throw invalidParameter('settings.url', blocked);
    return { url: url.href, subject, stream };
  },

  view: (settings) => ({ url: maskedUrl(settings.url), subject: settings.subject, stream: settings.stream }),

  target: (settings) => `${maskedUrl(settings.url)}#${settings.stream}/${settings.subject}.>`,

  connect(settings, options) {
    const { log } = options;
    const url = new URL(settings.url);
    const timeout = options.deadlineMs;
    let opened: Promise<NatsConnection> | null = null;

    async function open(): Promise<NatsConnection> {
      const { connect } = await natsClient();
      const { jetstreamManager } = await jetStreamClient();
      const host = url.hostname.replace(/^\[|\]$/g, '');
      const pinned = await dialAddress(host, options.environment, options.resolve);
      const dialled = pinned.family === 6 ? `[${pinned.address}]` : pinned.address;
      const nc = await connect({
        servers: `${url.protocol === 'tls:' ? 'tls' : 'nats'}://${dialled}:${url.port || '4222'}`,
        ...(url.username ? { user: decodeURIComponent(url.username) } : {}),
        ...(url.password ? { pass: decodeURIComponent(url.password) } : {}),
        // Dialled by address: the certificate is checked against the name in the settings. (The
        // transport hands these options to tls.connect, whose `servername` its type leaves out.)
        ...(url.protocol === 'tls:'
          ? { tls: (isIP(host) === 0 ? { servername: host } : {}) as TlsOptions }
          : {}),
        ignoreClusterUpdates: true,
        name: 'tributary-destination',
        timeout: options.connectTimeoutMs,
        // No reconnecting in the background: publishes made meanwhile would wait in the client's
        // buffer until their timeout. A lost connection fails its sends at once (retried by the
        // schedule) and the next send connects again.
        reconnect: false,
      });
      void nc.closed().then((error) => {
        if (error) log.warn({ err: describeFailure(error) }, 'destination NATS connection closed');
        opened = null;
      });
      const manager = await jetstreamManager(nc, { timeout });
      try {
        await manager.streams.info(settings.stream);
      } catch (error) {
        if (!/not found/i.test(describeFailure(error))) throw error;
        await manager.streams.add({
          name: settings.stream,
          subjects: [`${settings.subject}.>`],
          duplicate_window: DUPLICATE_WINDOW_MS * 1_000_000,
        });
      }
      return nc;
    }

    return {
      async send(event, signal) {
        // The deadline closes the connection: a publish waiting on it fails at once.
        const abandon = () => void opened?.then((nc) => nc.close()).catch(() => undefined);
        signal.addEventListener('abort', abandon, { once: true });
        try {
          opened ??= open().catch((error: unknown) => {
            opened = null;
            throw error;
          });
          const nc = await opened;
          const [{ jetstream }, { headers }] = await Promise.all([jetStreamClient(), natsClient()]);
          const js = jetstream(nc, { timeout });
          const h = headers();
          h.set('Tributary-Event-Type', event.type);
          h.set('Tributary-Developer', event.developerId);
          if (event.userId) h.set('Tributary-User', event.userId);
          h.set('Tributary-Created-At', event.createdAt.toISOString());
          await js.publish(`${settings.subject}.${event.type}`, event.body, { msgID: event.id, headers: h });
          return { outcome: 'delivered', error: null };
        } catch (error) {
          return { outcome: classifyNatsError(error), error: describeFailure(error) };
        } finally {
          signal.removeEventListener('abort', abandon);
        }
      },
      async close() {
        const current = opened;
        opened = null;
        if (current) await current.then((nc) => nc.close()).catch(() => undefined);
      },
    };
  },
};

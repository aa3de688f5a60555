// The object storage destination (the S3 API's PutObject, signed here: s3-put.ts): one JSON object per
// event at `<prefix><developer>/<type>/<user or _>/<YYYY-MM-DD>/<event id>.json`, the date being
// the event's creation day (UTC). The key depends only on the event, so a retry, a replay or a
// batch sent again after a crash overwrites the same object with the same bytes: never a second
// object. With `object_format: ndjson_gzip` a batch of events is one gzip NDJSON object instead
// (one line per event), at `<prefix><developer>/batches/<YYYY-MM-DD>/<digest of the event ids>.ndjson.gz`:
// the same batch sent again writes the same object; an event retried in another batch is a line
// of that batch's object too (at least once: read by event id). Custom endpoints and path-style
// addressing cover MinIO, Ceph, R2 and GCS interoperability (docs/destinations.md).
// The endpoint is an address only (no query string, fragment or credentials), checked by the
// address policy when saved and by the client's agents on every connection they open (the
// address checked is the one dialled), and every request carries the engine's deadline.
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import Type from 'typebox';
import { invalidParameter } from '../../../core/errors.ts';
import { checkedLookup, checkHostAllowed, DestinationBlockedError } from '../destination-policy.ts';
import { classifyResponse } from '../retry-policy.ts';
import { createS3Put } from './s3-put.ts';
import {
  addressUrlSetting,
  booleanSetting,
  type DestinationKind,
  describeFailure,
  type KindEvent,
  type KindResult,
  settingsChecker,
  stringSetting,
} from './kind.ts';

export type S3Settings = {
  bucket: string;
  region: string;
  endpoint: string | null;
  force_path_style: boolean;
  prefix: string;
  access_key_id: string;
  secret_access_key: string;
  /** `json`: an object per event; `ndjson_gzip`: an object per batch. Absent in settings stored before it: `json`. */
  object_format?: ObjectFormat;
};

export type ObjectFormat = 'json' | 'ndjson_gzip';
const OBJECT_FORMAT = /^(json|ndjson_gzip)$/;

/** Bucket names as S3 allows them for new buckets (general purpose bucket naming rules). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION = /^[a-z0-9-]{1,32}$/;
/** A key prefix of safe characters ending in `/` (S3's "safe characters" for object keys). */
const PREFIX = /^([A-Za-z0-9!_.*'()-]+\/)*$/;
const TOKEN = /^[A-Za-z0-9_.\-~]{1,40}$/;

const HINTS = {
  bucket: 'expected 3-63 lower-case letters, digits, dots and hyphens (S3 bucket naming rules)',
  region: 'expected a region such as us-east-1',
  prefix: 'expected path segments each ending in /',
  access_key_id: 'expected an access key id',
  object_format: 'expected json or ndjson_gzip',
};

/** The settings of an s3 destination as the API takes them (validation, OpenAPI and packages/client). */
export const S3SettingsSchema = Type.Object(
  {
    bucket: Type.String({
      pattern: BUCKET.source,
      minLength: 3,
      maxLength: 63,
      description: 'The bucket (S3 naming rules)',
    }),
    region: Type.Optional(
      Type.String({ pattern: REGION.source, minLength: 1, maxLength: 32, description: 'Default us-east-1' }),
    ),
    endpoint: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          'URL of an S3-compatible service (MinIO, Ceph, R2, GCS): an address only, https in production; default AWS',
      }),
    ),
    prefix: Type.Optional(
      Type.String({
        pattern: PREFIX.source,
        maxLength: 512,
        description: 'Key prefix: path segments each ending in /',
      }),
    ),
    access_key_id: Type.String({
      pattern: TOKEN.source,
      minLength: 1,
      maxLength: 40,
      description: 'The access key id',
    }),
    secret_access_key: Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'The secret access key (stored encrypted, never shown again)',
    }),
    force_path_style: Type.Optional(
      Type.Boolean({ description: 'Path-style addressing; default true with an endpoint, else false' }),
    ),
    object_format: Type.Optional(
      Type.String({
        pattern: OBJECT_FORMAT.source,
        description:
          'json (default): one JSON object per event; ndjson_gzip: one gzip NDJSON object per batch of events (fewer, larger writes)',
        examples: ['ndjson_gzip'],
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'S3Settings',
    description: 'kind s3: one JSON object per event, or one gzip NDJSON object per batch',
  },
);

const checkSettings = settingsChecker(S3SettingsSchema, { hints: HINTS });

/** Where an event's object goes (see the module comment). */
export function objectKey(prefix: string, event: KindEvent): string {
  const day = event.createdAt.toISOString().slice(0, 10);
  const part = (value: string) => encodeURIComponent(value);
  return `${prefix}${part(event.developerId)}/${part(event.type)}/${part(event.userId ?? '_')}/${day}/${part(event.id)}.json`;
}

/**
 * Where a batch's object goes: under its first event's developer and creation day (UTC), named by
 * a digest of its event ids, so the same batch sent again overwrites its own object.
 */
export function batchObjectKey(prefix: string, events: readonly KindEvent[]): string {
  const first = events[0]!;
  const day = first.createdAt.toISOString().slice(0, 10);
  const digest = createHash('sha256');
  for (const event of events) digest.update(event.id).update('\n');
  return `${prefix}${encodeURIComponent(first.developerId)}/batches/${day}/${digest.digest('hex').slice(0, 32)}.ndjson.gz`;
}

const gzipped = promisify(gzip);

/**
 * The batch as NDJSON, gzipped: a line per event with its id, type, user and creation time, and
 * the payload exactly as the webhook would POST it (the stored JSON text, not parsed again).
 */
export async function batchObjectBody(events: readonly KindEvent[]): Promise<Buffer> {
  const lines = events.map(
    (event) =>
      `{"event_id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"user_id":${JSON.stringify(event.userId)},` +
      `"created_at":${JSON.stringify(event.createdAt.toISOString())},"payload":${event.body}}\n`,
  );
  return gzipped(lines.join(''));
}

/** What an S3 refusal means for the event (a 2xx is delivered and never comes here). */
export function classifyS3Status(status: number): KindResult['outcome'] {
  // Credentials refused (InvalidAccessKeyId, SignatureDoesNotMatch, AccessDenied: 403; 401 on
  // some compatible stores) and a missing bucket (NoSuchBucket: 404) are the destination's
  // configuration, which the developer fixes: retried, so the destination turns failing and then
  // disabled and its events are held, not lost. Otherwise an answer is classed as a webhook's
  // (retry-policy.ts): 408, 429 and 5xx retried, other 4xx (a malformed or oversized request)
  // refused for good.
  if (status === 401 || status === 403 || status === 404) return 'retry';
  const verdict = classifyResponse(status);
  return verdict === 'delivered' ? 'retry' : verdict;
}

export const s3Kind: DestinationKind<S3Settings> = {
  kind: 's3',

  async parse(input, { environment, resolve }) {
    const settings = checkSettings(input);
    const bucket = stringSetting(settings, 'bucket', {
      required: true,
      pattern: BUCKET,
      hint: HINTS.bucket,
    })!;
    const region = stringSetting(settings, 'region', {
      pattern: REGION,
      hint: HINTS.region,
    });
    let endpoint: string | null = null;
    if (settings.endpoint !== undefined && settings.endpoint !== null) {
      const url = addressUrlSetting(settings, 'endpoint', ['https', 'http'], {
        credentials: false,
        credentialsHint: ': use access_key_id and secret_access_key',
      });
      if (environment === 'production' && url.protocol !== 'https:')
        throw invalidParameter('settings.endpoint', 'production endpoints must use https');
      const blocked = await checkHostAllowed(url.hostname, environment, resolve);
      if (blocked) throw invalidParameter('settings.endpoint', blocked);
      endpoint = url.origin + url.pathname.replace(/\/$/, '');
    }
    // '' is the stored form of "no prefix": a PATCH checks the stored settings again with it.
    const prefix =
      settings.prefix === ''
        ? ''
        : (stringSetting(settings, 'prefix', {
            pattern: PREFIX,
            max: 512,
            hint: HINTS.prefix,
          }) ?? '');
    const accessKeyId = stringSetting(settings, 'access_key_id', {
      required: true,
      pattern: TOKEN,
      hint: HINTS.access_key_id,
    })!;
    const secretAccessKey = stringSetting(settings, 'secret_access_key', { required: true, max: 128 })!;
    const objectFormat = stringSetting(settings, 'object_format', {
      pattern: OBJECT_FORMAT,
      hint: HINTS.object_format,
    }) as ObjectFormat | undefined;
    return {
      bucket,
      region: region ?? 'us-east-1',
      endpoint,
      force_path_style: booleanSetting(settings, 'force_path_style') ?? endpoint !== null,
      prefix,
      access_key_id: accessKeyId,
      secret_access_key: secretAccessKey,
      object_format: objectFormat ?? 'json',
    };
  },

  view: (settings) => ({
    bucket: settings.bucket,
    region: settings.region,
    endpoint: settings.endpoint,
    force_path_style: settings.force_path_style,
    prefix: settings.prefix,
    access_key_id: settings.access_key_id,
    object_format: settings.object_format ?? 'json',
  }),

  target: (settings) =>
    `${settings.endpoint ?? `https://s3.${settings.region}.amazonaws.com`}/${settings.bucket}/${settings.prefix}`,

  connect(settings, options) {
    // Host names are checked (production) by the agents' lookup on the addresses each socket
    // dials; an address literal skips lookup, so it is checked here before the first request.
    const lookup =
      options.environment === 'production' ? checkedLookup('production', options.resolve) : undefined;
    // Every socket a busy destination opened stays open for its next objects (as the webhook
    // sender's agents do); 50 at most, more than the engine lets one destination have in flight.
    const agentOptions = {
      keepAlive: true,
      maxSockets: 50,
      maxFreeSockets: 50,
      scheduling: 'lifo' as const,
      ...(lookup ? { lookup } : {}),
    };
    const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
    let literalChecked: Promise<void> | null = null;
    const checkLiteral = async () => {
      const host = settings.endpoint ? new URL(settings.endpoint).hostname.replace(/^\[|\]$/g, '') : '';
      if (isIP(host) === 0) return;
      const blocked = await checkHostAllowed(host, options.environment, options.resolve);
      if (blocked) throw new DestinationBlockedError(blocked);
    };
    const putObject = createS3Put(
      {
        bucket: settings.bucket,
        region: settings.region,
        endpoint: settings.endpoint,
        forcePathStyle: settings.force_path_style,
      },
      { accessKeyId: settings.access_key_id, secretAccessKey: settings.secret_access_key },
      { agents, connectTimeoutMs: options.connectTimeoutMs },
    );
    /** One object, within the engine's deadline (`signal`); a failure classed as S3 answered it. */
    async function put(
      key: string,
      body: string | Buffer,
      headers: Record<string, string>,
      signal: AbortSignal,
    ): Promise<KindResult> {
      try {
        literalChecked ??= checkLiteral();
        await literalChecked;
        const answer = await putObject(key, body, headers, signal);
        if (answer.status >= 200 && answer.status < 300) return { outcome: 'delivered', error: null };
        return {
          outcome: classifyS3Status(answer.status),
          statusCode: answer.status,
          retryAfter: answer.retryAfter,
          error:
            `${answer.code ?? `HTTP ${answer.status}`}: ${answer.message ?? 'S3 refused the object'}`.slice(
              0,
              300,
            ),
        };
      } catch (error) {
        // No answer (refused, reset, timed out): retried.
        return { outcome: 'retry', error: describeFailure(error) };
      }
    }

    /** A batch as one gzip NDJSON object: one outcome for all its events. */
    async function putBatch(events: readonly KindEvent[], signal: AbortSignal): Promise<KindResult[]> {
      const result = await put(
        batchObjectKey(settings.prefix, events),
        await batchObjectBody(events),
        {
          'content-type': 'application/x-ndjson',
          'content-encoding': 'gzip',
          'x-amz-meta-tributary-event-count': String(events.length),
        },
        signal,
      );
      return events.map(() => result);
    }

    const perBatch = settings.object_format === 'ndjson_gzip';
    return {
      async send(event, signal) {
        if (perBatch) return (await putBatch([event], signal))[0]!;
        return put(
          objectKey(settings.prefix, event),
          event.body,
          {
            'content-type': 'application/json',
            'x-amz-meta-tributary-event-type': event.type,
            'x-amz-meta-tributary-event-id': event.id,
          },
          signal,
        );
      },
      ...(perBatch ? { sendBatch: putBatch } : {}),
      async close() {
        agents.http.destroy();
        agents.https.destroy();
      },
    };
  },
};

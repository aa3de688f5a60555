import { createHash, createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A small S3-compatible server on loopback for the S3 destination's tests: PutObject, GetObject
 * and ListObjectsV2 on path-style URLs, in memory. The client under test is the destination's own
 * SigV4 PutObject (src/features/delivery/kinds/s3-put.ts); the tests read back with the real AWS
 * SDK v3. This server refuses what Amazon S3 refuses for the requests those clients make, each
 * rule from the public S3 API reference:
 *
 * - Signature Version 4 in the Authorization header, recomputed here from the canonical request
 *   (https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html and
 *   https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html): no header is
 *   403 AccessDenied, an unknown key 403 InvalidAccessKeyId, a wrong signature 403
 *   SignatureDoesNotMatch, a request more than 15 minutes off 403 RequestTimeTooSkewed, a body
 *   whose SHA-256 is not the signed x-amz-content-sha256 400 XAmzContentSHA256Mismatch
 *   (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
 * - A bucket it does not have: 404 NoSuchBucket; a missing key: 404 NoSuchKey; a key over 1,024
 *   bytes: 400 KeyTooLongError (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-keys.html).
 * - ListObjectsV2 pages of at most 1,000 keys in UTF-8 binary order with a continuation token
 *   (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html).
 * - aws-chunked streaming uploads are refused (501 NotImplemented), as several S3-compatible
 *   stores do: the destination must send plain bodies to custom endpoints.
 *
 * `stop()` closes it (connections are refused and open ones dropped) and `start()` opens it again
 * on the same port with the same objects. `puts` counts accepted writes.
 */
export const S3_TEST_KEY = {
  accessKeyId: 'AKIATRIBUTARYTEST01',
  secretAccessKey: 'test-secret-key-for-loopback-only',
};

export type S3Server = {
  readonly endpoint: string;
  readonly puts: number;
  /** Answers writes only this long after storing them (an acknowledgement that may never arrive). */
  answerDelayMs: number;
  objects(bucket: string): Map<string, Buffer>;
  start(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
};

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters. */
const encode = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function xmlEscape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

class S3Refusal extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function canonicalQuery(rawQuery: string): string {
  if (!rawQuery) return '';
  return rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const [name = '', value = ''] = pair.split('=');
      return [
        encode(decodeURIComponent(name)),
        encode(decodeURIComponent(value.replace(/\+/g, ' '))),
      ] as const;
    })
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/**
 * The signing key of a day and region, derived once: it depends on nothing else, so the server
 * recomputes only the request's own signature each time (which is what the checks need), and the
 * benches, whose S3 server shares the service's process, do not pay four extra HMACs per object.
 */
const signingKeys = new Map<string, KeyObject>();
function signingKey(day: string, region: string): KeyObject {
  const scope = `${day}/${region}`;
  let key = signingKeys.get(scope);
  if (!key) {
    key = createSecretKey(
      hmac(hmac(hmac(hmac(`AWS4${S3_TEST_KEY.secretAccessKey}`, day), region), 's3'), 'aws4_request'),
    );
    if (signingKeys.size > 100) signingKeys.clear();
    signingKeys.set(scope, key);
  }
  return key;
}

function verifySignature(request: IncomingMessage, body: Buffer, now: Date): void {
  const authorization = request.headers.authorization;
  if (!authorization) throw new S3Refusal(403, 'AccessDenied', 'Access Denied');
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
  if (!match)
    throw new S3Refusal(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed');
  const [, accessKeyId, day, region, signedHeaders, signature] = match as unknown as string[];
  if (accessKeyId !== S3_TEST_KEY.accessKeyId)
    throw new S3Refusal(
      403,
      'InvalidAccessKeyId',
      'The AWS Access Key Id you provided does not exist in our records.',
    );
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  const stamp = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!stamp || amzDate.slice(0, 8) !== day)
    throw new S3Refusal(403, 'AccessDenied', 'x-amz-date is missing or does not match the credential scope');
  const at = Date.UTC(+stamp[1]!, +stamp[2]! - 1, +stamp[3]!, +stamp[4]!, +stamp[5]!, +stamp[6]!);
  if (Math.abs(now.getTime() - at) > 15 * 60_000)
    throw new S3Refusal(
      403,
      'RequestTimeTooSkewed',
      'The difference between the request time and the current time is too large.',
    );
  const payloadHash = String(request.headers['x-amz-content-sha256'] ?? '');
  if (payloadHash.startsWith('STREAMING-'))
    throw new S3Refusal(501, 'NotImplemented', 'aws-chunked uploads are not implemented');
  if (payloadHash !== 'UNSIGNED-PAYLOAD') {
    if (!/^[0-9a-f]{64}$/.test(payloadHash))
      throw new S3Refusal(
        400,
        'InvalidRequest',
        'Missing required header for this request: x-amz-content-sha256',
      );
    if (sha256(body) !== payloadHash)
      throw new S3Refusal(
        400,
        'XAmzContentSHA256Mismatch',
        "The provided 'x-amz-content-sha256' header does not match what was computed.",
      );
  }
  const url = request.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const names = signedHeaders!.split(';');
  if (!names.includes('host')) throw new S3Refusal(403, 'AccessDenied', 'the host header must be signed');
  const headers = names
    .map((name) => {
      const value = request.headers[name];
      const text = Array.isArray(value) ? value.join(',') : (value ?? '');
      return `${name}:${text.trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  const canonical = [
    request.method,
    path,
    canonicalQuery(queryAt === -1 ? '' : url.slice(queryAt + 1)),
    headers,
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const expected = createHmac('sha256', signingKey(day!, region!)).update(toSign).digest();
  const given = Buffer.from(signature!, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new S3Refusal(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    );
}

export async function startS3Server(buckets: readonly string[]): Promise<S3Server> {
  const store = new Map<string, Map<string, Buffer>>(buckets.map((bucket) => [bucket, new Map()]));
  let puts = 0;
  let port = 0;
  let server: Server | null = null;
  const sockets = new Set<Socket>();

  function send(
    response: ServerResponse,
    status: number,
    xml: string | null,
    headers: Record<string, string> = {},
  ) {
    response.writeHead(status, { ...(xml ? { 'content-type': 'application/xml' } : {}), ...headers });
    response.end(xml ?? undefined);
  }

  function handle(request: IncomingMessage, response: ServerResponse, body: Buffer) {
    const url = new URL(request.url ?? '/', 'http://s3.test');
    const [, bucket = '', ...rest] = url.pathname.split('/');
    const key = rest.map((part) => decodeURIComponent(part)).join('/');
    verifySignature(request, body, new Date());
    const objects = store.get(bucket);
    if (!bucket) throw new S3Refusal(400, 'InvalidRequest', 'this server answers path-style requests only');
    if (!objects) throw new S3Refusal(404, 'NoSuchBucket', 'The specified bucket does not exist');
    if (request.method === 'PUT' && key) {
      if (Buffer.byteLength(key) > 1024) throw new S3Refusal(400, 'KeyTooLongError', 'Your key is too long');
      objects.set(key, body);
      puts++;
      const etag = `"${createHash('md5').update(body).digest('hex')}"`;
      if (api.answerDelayMs > 0) {
        setTimeout(() => send(response, 200, null, { etag }), api.answerDelayMs);
        return;
      }
      return send(response, 200, null, { etag });
    }
    if (request.method === 'GET' && key) {
      const found = objects.get(key);
      if (!found) throw new S3Refusal(404, 'NoSuchKey', 'The specified key does not exist.');
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(found.length) });
      return response.end(found);
    }
    if (request.method === 'GET' && url.searchParams.get('list-type') === '2') {
      const prefix = url.searchParams.get('prefix') ?? '';
      const max = Math.min(1000, Number(url.searchParams.get('max-keys') ?? 1000));
      const after = url.searchParams.get('continuation-token')
        ? Buffer.from(url.searchParams.get('continuation-token')!, 'base64url').toString()
        : '';
      const all = [...objects.keys()]
        .filter((name) => name.startsWith(prefix) && name > after)
        .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      const page = all.slice(0, max);
      const truncated = all.length > page.length;
      const contents = page
        .map(
          (name) =>
            `<Contents><Key>${xmlEscape(name)}</Key><Size>${objects.get(name)!.length}</Size></Contents>`,
        )
        .join('');
      const next = truncated
        ? `<NextContinuationToken>${Buffer.from(page.at(-1)!).toString('base64url')}</NextContinuationToken>`
        : '';
      return send(
        response,
        200,
        `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>${bucket}</Name><Prefix>${xmlEscape(prefix)}</Prefix>` +
          `<KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents}${next}</ListBucketResult>`,
      );
    }
    throw new S3Refusal(501, 'NotImplemented', `${request.method} is not implemented by this test server`);
  }

  const start = async () => {
    if (server) return;
    const next = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        try {
          handle(request, response, Buffer.concat(chunks));
        } catch (error) {
          const refusal =
            error instanceof S3Refusal
              ? error
              : new S3Refusal(500, 'InternalError', (error as Error).message);
          send(
            response,
            refusal.status,
            `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${refusal.code}</Code><Message>${xmlEscape(refusal.message)}</Message></Error>`,
          );
        }
      });
    });
    next.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    const address = next.address();
    if (!address || typeof address === 'string') throw new Error('the S3 test server has no port');
    port = address.port;
    server = next;
  };
  const stop = async () => {
    const current = server;
    server = null;
    if (!current) return;
    const closed = new Promise<void>((resolve) => current.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await closed;
  };
  await start();
  const api: S3Server = {
    answerDelayMs: 0,
    get endpoint() {
      return `http://127.0.0.1:${port}`;
    },
    get puts() {
      return puts;
    },
    objects: (bucket) => store.get(bucket) ?? new Map(),
    start,
    stop,
    async close() {
      await stop();
    },
  };
  return api;
}

// One S3 PutObject as one signed HTTP request over the destination's keep-alive agents
// (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html). The S3 destination writes
// nothing else, so it sends this one request itself, signed by aws4 (Signature Version 4 in the
// Authorization header; it caches the derived signing key per secret, day, region and service),
// rather than through the AWS SDK, whose per-request middleware (endpoint rules, serializers, its
// own signer, retry and checksum steps) cost ~1 ms of CPU per object in the bench's profile against
// ~0.2 ms for the request itself: an object per event was 4× slower than a webhook POST per event.
//
// Integrity: the body's SHA-256 is signed (x-amz-content-sha256), and S3 refuses a body that does
// not match it (XAmzContentSHA256Mismatch), so no x-amz-checksum-* or Content-MD5 is sent (neither
// is required for PutObject; several S3-compatible stores refuse the former, aws/aws-sdk-js-v3#6810).
import http from 'node:http';
import https from 'node:https';
import aws4 from 'aws4';

export type S3Credentials = { accessKeyId: string; secretAccessKey: string };

export type S3Address = {
  bucket: string;
  region: string;
  /** An S3-compatible service's URL (origin and optional base path); null: Amazon S3 in `region`. */
  endpoint: string | null;
  forcePathStyle: boolean;
};

/** What S3 answered: its status, and for a refusal the error's code and message from its XML body. */
export type S3Answer = {
  status: number;
  code: string | null;
  message: string | null;
  retryAfter: string | null;
};

/** An error body is read this far at most (S3's are well under a kilobyte). */
const MAX_ERROR_BYTES = 16 * 1024;

/** RFC 3986 encoding as SigV4 wants it: everything but the unreserved characters. */
export function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * A path segment as aws4 puts it in the canonical request for S3 (decoded, then encoded once), so
 * that the path sent is the path signed: an endpoint's base path may hold characters that URL
 * leaves as they are (`+`, `:`, `@` …).
 */
function canonicalSegment(segment: string): string {
  try {
    return uriEncode(decodeURIComponent(segment));
  } catch {
    return uriEncode(segment); // a stray `%`
  }
}

/**
 * The object's URL: path-style (`endpoint/bucket/key`) or virtual-hosted (`bucket.host/key`).
 * A bucket with dots is addressed path-style over https (a virtual host `a.b.host` would not match
 * the certificate's `*.host`), as the AWS SDK does.
 */
function objectBase(address: S3Address): { origin: URL; pathPrefix: string } {
  const base = new URL(address.endpoint ?? `https://s3.${address.region}.amazonaws.com`);
  const basePath = base.pathname.replace(/\/$/, '').split('/').map(canonicalSegment).join('/');
  const pathStyle = address.forcePathStyle || (base.protocol === 'https:' && address.bucket.includes('.'));
  if (pathStyle) return { origin: base, pathPrefix: `${basePath}/${uriEncode(address.bucket)}/` };
  const virtual = new URL(base.href);
  virtual.hostname = `${address.bucket}.${base.hostname}`;
  return { origin: virtual, pathPrefix: `${basePath}/` };
}

/** Each segment of the key URI-encoded once, `/` kept (S3's canonical URI is the path as sent). */
const encodeKey = (key: string) => key.split('/').map(uriEncode).join('/');

/** Where `key` is written: the URL the request goes to (for tests and the docs' examples). */
export function objectUrl(address: S3Address, key: string): string {
  const { origin, pathPrefix } = objectBase(address);
  return `${origin.origin}${pathPrefix}${encodeKey(key)}`;
}

/**
 * Signs the PutObject of `key` at `at`: the request's path and its headers (`headers`, lower-case,
 * plus host, content-length, x-amz-content-sha256, x-amz-date and authorization, all signed).
 */
export function createPutSigner(address: S3Address, credentials: S3Credentials) {
  const { origin, pathPrefix } = objectBase(address);
  return function signPut(
    key: string,
    body: string | Buffer,
    headers: Readonly<Record<string, string>>,
    at: Date,
  ): { path: string; headers: http.OutgoingHttpHeaders } {
    const signed = aws4.sign(
      {
        service: 's3',
        region: address.region,
        method: 'PUT',
        path: pathPrefix + encodeKey(key),
        body,
        headers: {
          ...headers,
          host: origin.host,
          // YYYYMMDDTHHMMSSZ; given rather than left to aws4 so that a test can choose the day.
          'x-amz-date': at.toISOString().replace(/[-:]|\.\d{3}/g, ''),
        },
      },
      credentials,
    );
    return { path: signed.path!, headers: signed.headers! };
  };
}

export function createS3Put(
  address: S3Address,
  credentials: S3Credentials,
  options: { agents: { http: http.Agent; https: https.Agent }; connectTimeoutMs: number },
) {
  const signPut = createPutSigner(address, credentials);
  const { origin } = objectBase(address);
  const secure = origin.protocol === 'https:';
  const transport = secure ? https : http;
  const agent = secure ? options.agents.https : options.agents.http;

  /**
   * Writes one object. `headers`: content-type and the like, lower-case. Resolves with what S3
   * answered; rejects when there is no answer (refused, reset, aborted by `signal`, not connected
   * within the connect timeout).
   */
  return function put(
    key: string,
    body: string | Buffer,
    headers: Readonly<Record<string, string>>,
    signal: AbortSignal,
  ): Promise<S3Answer> {
    const { path, headers: signed } = signPut(key, body, headers, new Date());
    return new Promise<S3Answer>((resolve, reject) => {
      const request = transport.request({
        protocol: origin.protocol,
        hostname: origin.hostname.replace(/^\[|\]$/g, ''),
        port: origin.port,
        method: 'PUT',
        path,
        headers: signed,
        agent,
        signal,
      });
      // A store that never accepts the connection fails sooner than one that is merely slow; the
      // whole exchange is bounded by `signal` (the engine's deadline).
      request.on('socket', (socket) => {
        if (!socket.connecting) return;
        const connectTimer = setTimeout(() => {
          request.destroy(
            Object.assign(new Error(`not connected within ${options.connectTimeoutMs} ms`), {
              code: 'ETIMEDOUT',
            }),
          );
        }, options.connectTimeoutMs);
        const stop = () => clearTimeout(connectTimer);
        socket.once('connect', stop);
        socket.once('close', stop);
        request.once('close', stop);
      });
      request.on('error', reject);
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        const retryAfter = response.headers['retry-after'];
        const chunks: Buffer[] = [];
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          // (A success's body is empty; an error's is a small XML document.)
          received += chunk.length;
          if (received > MAX_ERROR_BYTES) return void response.destroy();
          chunks.push(chunk);
        });
        let answered = false;
        const done = () => {
          if (answered) return;
          answered = true;
          const text = status >= 300 ? Buffer.concat(chunks).toString('utf8') : '';
          resolve({
            status,
            code: /<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? null,
            message: /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? null,
            retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
          });
        };
        response.on('end', done);
        // A store that answers and then hangs up still gave its status code.
        response.on('close', done);
        response.on('error', () => undefined);
      });
      request.end(body);
    });
  };
}

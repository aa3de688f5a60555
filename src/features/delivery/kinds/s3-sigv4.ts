// Signature Version 4 for S3 requests with the signature in the Authorization header
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html,
// https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html). Its own module
// because the S3 destination signs every object it writes: the signing key depends only on the
// secret, the day, the region and the service, so it is derived once a day (four HMACs) and kept
// as a KeyObject, leaving one SHA-256 of the canonical request and one HMAC per request.
import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';

export type SigV4Credentials = { accessKeyId: string; secretAccessKey: string };

/** RFC 3986 encoding as SigV4 wants it: everything but the unreserved characters. */
export function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** `YYYYMMDDTHHMMSSZ`, the form of x-amz-date. */
export function amzDate(at: Date): string {
  return at.toISOString().replace(/[-:]|\.\d{3}/g, '');
}

export const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * A signer for one key, region and service. `sign` returns the Authorization header for a request
 * whose headers (lower-case names, including host, x-amz-date and x-amz-content-sha256) are all
 * signed; S3's canonical URI is the path as sent (no second encoding, no normalisation).
 */
export function createSigV4Signer(credentials: SigV4Credentials, region: string, service = 's3') {
  let cached: { day: string; key: KeyObject } | null = null;

  function signingKey(day: string): KeyObject {
    if (cached?.day === day) return cached.key;
    const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
    const derived = hmac(
      hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), region), service),
      'aws4_request',
    );
    cached = { day, key: createSecretKey(derived) };
    return cached.key;
  }

  return function sign(request: {
    method: string;
    /** The encoded path as it goes on the request line. */
    path: string;
    /** The canonical query string (encoded, sorted by name); none by default. */
    query?: string;
    /** Lower-case names; values as sent. */
    headers: Readonly<Record<string, string>>;
    /** x-amz-date's value. */
    date: string;
    /** x-amz-content-sha256's value. */
    payloadHash: string;
  }): string {
    const names = Object.keys(request.headers).sort();
    let canonicalHeaders = '';
    for (const name of names)
      canonicalHeaders += `${name}:${request.headers[name]!.trim().replace(/\s+/g, ' ')}\n`;
    const signedHeaders = names.join(';');
    const canonical = `${request.method}\n${request.path}\n${request.query ?? ''}\n${canonicalHeaders}\n${signedHeaders}\n${request.payloadHash}`;
    const day = request.date.slice(0, 8);
    const scope = `${day}/${region}/${service}/aws4_request`;
    const signature = createHmac('sha256', signingKey(day))
      .update(`AWS4-HMAC-SHA256\n${request.date}\n${scope}\n${sha256Hex(canonical)}`)
      .digest('hex');
    return `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  };
}

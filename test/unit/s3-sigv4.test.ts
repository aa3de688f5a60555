// The S3 destination signs its PutObject requests itself (kinds/s3-sigv4.ts): checked against the
// worked examples of the S3 API reference (Signature Version 4, header-based authentication,
// https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html), whose key and
// signatures are published there, and against the AWS SDK's own signer for a request as the
// destination makes it (metadata headers, a key with characters that need encoding), on two days
// (the signing key is derived once per day).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createSigV4Signer, sha256Hex, uriEncode } from '../../src/features/delivery/kinds/s3-sigv4.ts';

const EXAMPLE_KEY = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

describe('SigV4 for S3 requests', () => {
  test('the S3 API reference example GET Object: the published signature', () => {
    const sign = createSigV4Signer(EXAMPLE_KEY, 'us-east-1');
    const authorization = sign({
      method: 'GET',
      path: '/test.txt',
      headers: {
        host: 'examplebucket.s3.amazonaws.com',
        range: 'bytes=0-9',
        'x-amz-content-sha256': EMPTY_SHA256,
        'x-amz-date': '20130524T000000Z',
      },
      date: '20130524T000000Z',
      payloadHash: EMPTY_SHA256,
    });
    assert.equal(
      authorization,
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  test('a PutObject with metadata and a key that needs encoding: the AWS SDK signs it the same, on two days', async () => {
    // The SDK's request as it arrives (its headers, its encoded path), signed again here with the
    // headers it signed: the same Authorization header.
    const arrived: { path: string; headers: Record<string, string> }[] = [];
    const server = createServer((request, response) => {
      arrived.push({ path: request.url ?? '', headers: request.headers as Record<string, string> });
      request.resume();
      request.on('end', () => response.writeHead(200).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const body = '{"type":"sleep","data":[{"note":"naïve ✓"}]}';
    const key = ['exports', 'dev 1', 'sleep', "o'neil(1)*", '2026-05-01', 'evt_1.json'].join('/');
    const sign = createSigV4Signer(EXAMPLE_KEY, 'eu-west-3');
    try {
      for (const at of ['2026-05-01T23:59:59Z', '2026-05-02T00:00:01Z']) {
        const client = new S3Client({
          region: 'eu-west-3',
          endpoint: `http://127.0.0.1:${port}`,
          forcePathStyle: true,
          credentials: EXAMPLE_KEY,
          systemClockOffset: Date.parse(at) - Date.now(),
          requestChecksumCalculation: 'WHEN_REQUIRED',
        });
        await client.send(
          new PutObjectCommand({
            Bucket: 'bucket',
            Key: key,
            Body: body,
            ContentType: 'application/json',
            Metadata: { 'tributary-event-type': 'sleep', 'tributary-event-id': 'evt_1' },
          }),
        );
        client.destroy();
        const { path, headers } = arrived.at(-1)!;
        const [pathOnly, query] = path.split('?');
        assert.equal(pathOnly, `/bucket/${key.split('/').map(uriEncode).join('/')}`);
        const signedNames = /SignedHeaders=([^,]+)/.exec(headers.authorization ?? '')![1]!.split(';');
        assert.ok(signedNames.includes('x-amz-meta-tributary-event-id'));
        const date = headers['x-amz-date']!;
        assert.equal(date.slice(0, 8), at.slice(0, 10).replace(/-/g, ''));
        assert.equal(headers['x-amz-content-sha256'], sha256Hex(body));
        assert.equal(
          sign({
            method: 'PUT',
            path: pathOnly!,
            query: query!,
            headers: Object.fromEntries(signedNames.map((name) => [name, headers[name]!])),
            date,
            payloadHash: sha256Hex(body),
          }),
          headers.authorization,
        );
      }
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

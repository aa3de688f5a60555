// The S3 destination's PutObject requests are signed by aws4 (kinds/s3-put.ts, createPutSigner):
// checked against a worked example of the S3 API reference (Signature Version 4, header-based
// authentication, https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html),
// whose key and signature are published there, and against the AWS SDK's own signer for a request
// as the destination makes it (metadata headers, a key with characters that need encoding), on two
// days (the signing key is derived per day).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import aws4 from 'aws4';
import { createPutSigner, uriEncode } from '../../src/features/delivery/kinds/s3-put.ts';

const EXAMPLE_KEY = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};
const sha256Hex = (data: string) => createHash('sha256').update(data).digest('hex');

describe('SigV4 for S3 requests', () => {
  test('the S3 API reference example GET Object: the published signature', () => {
    // The example signs its Range header, which aws4 leaves unsigned unless asked (the destination
    // sends none).
    const request = {
      service: 's3',
      region: 'us-east-1',
      method: 'GET',
      path: '/test.txt',
      headers: {
        host: 'examplebucket.s3.amazonaws.com',
        range: 'bytes=0-9',
        'x-amz-content-sha256': sha256Hex(''),
        'x-amz-date': '20130524T000000Z',
      },
      extraHeadersToInclude: { range: true },
    };
    assert.equal(
      aws4.sign(request, EXAMPLE_KEY).headers!.Authorization,
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  test('a PutObject with metadata and a key that needs encoding: the AWS SDK signs it the same, on two days', async () => {
    // The SDK's request as it arrives, against the destination's own signing of the same object at
    // the same time. Just before signing, the SDK's request is cut down to what the destination
    // sends: no `x-id` query, no amz-sdk-* or x-amz-user-agent headers (its own additions, which
    // it would sign too).
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
    const headers = {
      'content-type': 'application/json',
      'x-amz-meta-tributary-event-type': 'sleep',
      'x-amz-meta-tributary-event-id': 'evt_1',
    };
    const signPut = createPutSigner(
      { bucket: 'bucket', region: 'eu-west-3', endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true },
      EXAMPLE_KEY,
    );
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
        const asTheDestinationSendsIt =
          <A extends { request: unknown }, R>(next: (args: A) => R) =>
          (args: A): R => {
            const request = args.request as {
              query: Record<string, unknown>;
              headers: Record<string, string>;
            };
            delete request.query['x-id'];
            for (const name of Object.keys(request.headers))
              if (/^(amz-sdk-|x-amz-user-agent$)/i.test(name)) delete request.headers[name];
            return next(args);
          };
        client.middlewareStack.addRelativeTo(asTheDestinationSendsIt, {
          relation: 'before',
          toMiddleware: 'httpSigningMiddleware',
        });
        await client.send(
          new PutObjectCommand({
            Bucket: 'bucket',
            Key: key,
            Body: body,
            ContentType: headers['content-type'],
            Metadata: { 'tributary-event-type': 'sleep', 'tributary-event-id': 'evt_1' },
          }),
        );
        client.destroy();
        const sdk = arrived.at(-1)!;
        assert.match(sdk.headers.authorization ?? '', /SignedHeaders=[^,]*x-amz-meta-tributary-event-id/);
        const date = sdk.headers['x-amz-date']!;
        assert.equal(date.slice(0, 8), at.slice(0, 10).replace(/-/g, ''));
        const sdkTime = new Date(
          date.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'),
        );
        const ours = signPut(key, body, headers, sdkTime);
        assert.equal(sdk.path, `/bucket/${key.split('/').map(uriEncode).join('/')}`);
        assert.equal(ours.path, sdk.path);
        assert.equal(ours.headers['X-Amz-Content-Sha256'], sha256Hex(body));
        assert.equal(ours.headers['x-amz-date'], date);
        assert.equal(ours.headers.Authorization, sdk.headers.authorization);
      }
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

// Where the S3 destination's requests go (kinds/s3-put.ts): Amazon S3 virtual-hosted in its region,
// a custom endpoint path-style or virtual-hosted as `force_path_style` says, a bucket with dots
// path-style over https (its virtual host would not match the certificate), each key segment
// URI-encoded once (a base path's too).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { objectUrl } from '../../src/features/delivery/kinds/s3-put.ts';

test('object URLs: virtual-hosted, path-style, dotted buckets, base paths, encoded keys', () => {
  const aws = { bucket: 'exports', region: 'eu-west-3', endpoint: null, forcePathStyle: false };
  assert.equal(objectUrl(aws, 'a/b.json'), 'https://exports.s3.eu-west-3.amazonaws.com/a/b.json');
  assert.equal(
    objectUrl({ ...aws, bucket: 'my.exports' }, 'a/b.json'),
    'https://s3.eu-west-3.amazonaws.com/my.exports/a/b.json',
  );
  assert.equal(
    objectUrl({ ...aws, forcePathStyle: true }, "dev 1/o'neil(1)*.json"),
    'https://s3.eu-west-3.amazonaws.com/exports/dev%201/o%27neil%281%29%2A.json',
  );
  const minio = {
    bucket: 'my.exports',
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9000/s3',
    forcePathStyle: true,
  };
  assert.equal(objectUrl(minio, 'k.json'), 'http://127.0.0.1:9000/s3/my.exports/k.json');
  // A base path is sent as aws4 signs it: each segment encoded once.
  assert.equal(
    objectUrl({ ...minio, endpoint: 'http://127.0.0.1:9000/s3+v1:a%20b' }, 'k.json'),
    'http://127.0.0.1:9000/s3%2Bv1%3Aa%20b/my.exports/k.json',
  );
  assert.equal(
    objectUrl({ ...minio, endpoint: 'http://store.example.com:9000', forcePathStyle: false }, 'k.json'),
    'http://my.exports.store.example.com:9000/k.json',
  );
  assert.equal(
    objectUrl({ ...minio, endpoint: 'https://store.example.com', forcePathStyle: false }, 'k.json'),
    'https://store.example.com/my.exports/k.json',
  );
});

// The secret box's bytes form (stored files): no text encoding, so the sealed size is the
// plaintext's plus a fixed overhead; a changed byte or another key is refused.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { createSecretBox, SEALED_BYTES_OVERHEAD } from '../../src/core/secret-box.ts';

test('bytes seal and open byte for byte, at their own size plus the overhead', () => {
  const box = createSecretBox(randomBytes(32));
  for (const size of [0, 1, 1000, 1_000_001]) {
    const plain = randomBytes(size);
    const sealed = box.sealBytes(plain);
    assert.equal(sealed.length, size + SEALED_BYTES_OVERHEAD);
    assert.ok(box.openBytes(sealed).equals(plain));
    // PGlite reads bytea as a Uint8Array: opens the same.
    assert.ok(box.openBytes(new Uint8Array(sealed)).equals(plain));
  }
});

test('a tampered byte, a foreign key or a short input is refused', () => {
  const box = createSecretBox(randomBytes(32));
  const sealed = box.sealBytes(Buffer.from('report'));
  const tampered = Buffer.from(sealed);
  tampered[tampered.length - 1]! ^= 1;
  assert.throws(() => box.openBytes(tampered));
  assert.throws(() => createSecretBox(randomBytes(32)).openBytes(sealed));
  assert.throws(() => box.openBytes(sealed.subarray(0, SEALED_BYTES_OVERHEAD - 1)), /unrecognised/);
});

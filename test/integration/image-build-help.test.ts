import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

/**
 * `npm run image` on a machine without buildah says how to get it (and the Docker alternative),
 * exits 1 and builds nothing. The script runs with a PATH holding only the few tools it needs
 * before that check, so the answer does not depend on whether this machine has buildah.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
let bin: string;
before(() => {
  bin = mkdtempSync(join(tmpdir(), 'tributary-no-buildah-'));
  for (const tool of ['dirname', 'readlink', 'ldd', 'cat']) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
});
after(() => rmSync(bin, { recursive: true, force: true }));

test('without buildah, the image build says how to install it and exits 1', async () => {
  const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      '/bin/bash',
      [join(ROOT, 'deploy/image/build.sh')],
      { env: { PATH: bin } },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /^build\.sh: buildah is missing\./);
  assert.match(result.stderr, /sudo apt-get install buildah/);
  assert.match(result.stderr, /docker build -t tributary:<version> \./);
  assert.match(result.stderr, /docs\/operating\.md/);
});

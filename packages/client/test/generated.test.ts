// The generated types are the served document's: the document a started Tributary serves at
// /openapi.json (over a socket) generates exactly the committed src/schema.ts, and the document
// the generator builds in-process is that same document. A route, schema or event changed without
// `npm run generate` in packages/client fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startTestService, type TestService } from '../../../test/helpers/app.ts';
import { DOCUMENT_PUBLIC_URL, SCHEMA_FILE, servedDocument, typesFor } from '../scripts/openapi.ts';

describe('@tributary/client types against the served OpenAPI document', () => {
  let service: TestService;
  let served: Record<string, unknown>;

  before(async () => {
    service = await startTestService({ work: false, env: { PUBLIC_URL: DOCUMENT_PUBLIC_URL } });
    const origin = await service.app.listen({ host: '127.0.0.1', port: 0 });
    const response = await fetch(`${origin}/openapi.json`);
    assert.equal(response.status, 200);
    served = (await response.json()) as Record<string, unknown>;
  });
  after(async () => service?.close());

  test('src/schema.ts is what the served document generates (run `npm run generate` in packages/client when not)', async () => {
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    const generated = await typesFor(served);
    if (generated !== committed) {
      const a = committed.split('\n');
      const b = generated.split('\n');
      const line = a.findIndex((text, index) => text !== b[index]);
      assert.fail(
        `src/schema.ts differs from the served document's types from line ${line + 1}:\n` +
          `  committed: ${a[line]}\n  generated: ${b[line]}\nrun \`npm run generate\` in packages/client`,
      );
    }
    // It is the real thing: every operation and event of the document has its entry.
    const paths = Object.keys(served.paths as object);
    assert.ok(paths.length >= 60, `${paths.length} paths`);
    for (const path of paths) assert.ok(committed.includes(`    "${path}": {`), `${path} in src/schema.ts`);
    for (const type of Object.keys(served.webhooks as object))
      assert.match(committed, new RegExp(`^    "?${type.replace('.', '\\.')}"?: \\{`, 'm'), `event ${type}`);
  });

  test('the generator builds the same document in-process as the server serves', async () => {
    assert.deepEqual(await servedDocument(), served);
  });

  test('a drifted document generates different types (the comparison can fail)', async () => {
    const drifted = structuredClone(served) as { paths: Record<string, unknown> };
    drifted.paths['/v2/an-operation-nobody-generated'] = drifted.paths['/v2/userInfo'];
    assert.notEqual(await typesFor(drifted), readFileSync(SCHEMA_FILE, 'utf8'));
  });
});

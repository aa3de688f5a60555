import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestService, type TestService } from '../helpers/app.ts';
import type { Document } from '../helpers/openapi-document.ts';

/**
 * /docs lists each webhook event under its name; its summary beside the name says what the event
 * is (it used to repeat the name: "auth auth").
 */
let service: TestService;
before(async () => {
  service = await startTestService({ work: false });
});
after(async () => service?.close());

test('every webhook entry of /openapi.json has a summary saying what the event is', async () => {
  const response = await service.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(response.statusCode, 200);
  const webhooks = (JSON.parse(response.body) as Document).webhooks ?? {};
  assert.ok(Object.keys(webhooks).length > 20, 'the document lists the events');
  for (const [type, entry] of Object.entries(webhooks)) {
    const { summary, description } = entry.post as { summary?: string; description?: string };
    assert.ok(summary && summary.trim().length > 0, `${type} has a summary`);
    assert.notEqual(summary.trim().toLowerCase(), type.toLowerCase(), `${type}: the summary is not its name`);
    assert.match(summary, /^\p{Lu}/u, `${type}: "${summary}" reads as a sentence`);
    assert.ok(
      description?.toLowerCase().startsWith(summary.toLowerCase()),
      `${type}: the summary comes from its description`,
    );
  }
  const auth = webhooks.auth!.post as { summary?: string };
  assert.equal(auth.summary, 'A user connected a provider account');
});

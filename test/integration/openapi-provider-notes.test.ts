import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { providerRegistry } from '../../src/providers/index.ts';
import type { Provider } from '../../src/provider-kit/types.ts';
import { startTestService, type TestService } from '../helpers/app.ts';
import type { Document } from '../helpers/openapi-document.ts';

/**
 * Where the API reference names providers, the names come from their declarations (core code
 * names none): the route push names each provider with a route hook and its route API, the
 * notification route each provider whose notifications are unsigned (it once said only Withings
 * while Garmin's were unsigned too).
 */
let service: TestService;
let document: Document;
const providers = Object.values(providerRegistry as Record<string, Provider>);

before(async () => {
  service = await startTestService({ work: false });
  const response = await service.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(response.statusCode, 200);
  document = JSON.parse(response.body) as Document;
});
after(async () => service?.close());

test('the route push names every provider with a route API, as its declaration calls it', () => {
  const apis = providers.flatMap(({ declaration, connector }) =>
    connector?.routes ? [`${declaration.name} ${connector.routes.apiName}`] : [],
  );
  assert.ok(apis.length >= 2, `providers with a route API: ${apis.join(', ')}`);
  const description = document.paths['/v2/routes/{route_id}/push']!.post!.description ?? '';
  assert.ok(description.includes(`course/route API (${apis.join(', ')});`), description);
});

test('the notification route names every provider whose notifications are unsigned', () => {
  const unsigned = providers
    .filter(({ connector }) => connector?.notifications?.unsigned)
    .map(({ declaration }) => declaration.name);
  assert.ok(unsigned.length >= 1);
  const description = document.paths['/providers/{provider}/webhook']!.post!.description ?? '';
  assert.ok(description.includes(`Unsigned ones (${unsigned.join(', ')}) are taken`), description);
});

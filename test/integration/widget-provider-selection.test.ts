import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';

/**
 * The widget's default providers (the contract's "sources selected in the developer's dashboard"):
 * a session naming no providers offers the selection, fixed when the session is made; a session's
 * own `providers` overrides it; the selection is per developer and accepts only web providers.
 */
describe('widget provider selection', { timeout: 60_000 }, () => {
  let service: TestService;
  let dev: TestDeveloper;
  let other: TestDeveloper;

  before(async () => {
    service = await startTestService({
      work: false,
      env: { STRAVA_CLIENT_ID: 'selection-test', STRAVA_CLIENT_SECRET: 'selection-test-secret' },
    });
    dev = await createDeveloper(service.ctx);
    other = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
  });

  async function offered(developer: TestDeveloper, payload: Record<string, unknown> = {}): Promise<string[]> {
    const created = await service.app.inject({
      method: 'POST',
      url: '/v2/auth/generateWidgetSession',
      headers: developer.headers,
      payload,
    });
    assert.equal(created.statusCode, 200, created.body);
    const view = await service.ctx.widget.view((created.json() as { session_id: string }).session_id);
    assert.equal(view.state, 'open');
    return view.state === 'open' ? view.providers.map((provider) => provider.id) : [];
  }

  test('no selection: every enabled web provider', async () => {
    assert.deepEqual((await offered(dev)).sort(), ['SANDBOX', 'STRAVA']);
    assert.equal(await service.ctx.widget.providerSelection(dev.devId), null);
  });

  test('a selection narrows new sessions that name none; named providers still win', async () => {
    const earlier = await service.app.inject({
      method: 'POST',
      url: '/v2/auth/generateWidgetSession',
      headers: dev.headers,
      payload: {},
    });
    assert.deepEqual(await service.ctx.widget.setProviderSelection(dev.devId, ['sandbox']), ['SANDBOX']);
    assert.deepEqual(await offered(dev), ['SANDBOX']);
    assert.deepEqual(await offered(dev, { providers: 'STRAVA' }), ['STRAVA']);
    assert.deepEqual((await offered(other)).sort(), ['SANDBOX', 'STRAVA'], 'per developer');
    const open = await service.ctx.widget.view((earlier.json() as { session_id: string }).session_id);
    assert.deepEqual(
      open.state === 'open' ? open.providers.map((provider) => provider.id).sort() : [],
      ['SANDBOX', 'STRAVA'],
      'a session made before keeps what it offered',
    );
  });

  test('an empty selection goes back to every enabled provider; unknown ids are refused', async () => {
    assert.equal(await service.ctx.widget.setProviderSelection(dev.devId, []), null);
    assert.deepEqual((await offered(dev)).sort(), ['SANDBOX', 'STRAVA']);
    await assert.rejects(service.ctx.widget.setProviderSelection(dev.devId, ['NOPE']), (error: Error) =>
      /unknown provider "NOPE"/.test(error.message),
    );
    // The API's own check for the same input, for comparison: one vocabulary.
    const api = await service.app.inject({
      method: 'POST',
      url: '/v2/auth/generateWidgetSession',
      headers: dev.headers,
      payload: { providers: 'NOPE' },
    });
    assert.equal(problemOf(api).status, 400);
  });
});

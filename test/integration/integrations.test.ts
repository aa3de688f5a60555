import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/core/config.ts';
import { createProviderCatalog } from '../../src/provider-access/catalog.ts';
import { providerRegistry } from '../../src/providers/index.ts';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { authenticateUser } from '../helpers/connections.ts';

type Entry = {
  provider: string;
  name: string;
  icon: string;
  setup: string;
  enabled: boolean;
  sdk: boolean;
  types: Record<string, boolean>;
};

describe('integrations', () => {
  let service: TestService;
  let dev: TestDeveloper;

  const detailed = async (query = '', headers: Record<string, string> = {}) => {
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/integrations/detailed${query}`,
      headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { status: string; providers: Entry[] }).providers;
  };

  before(async () => {
    service = await startTestService({
      env: {
        OURA_CLIENT_ID: 'id',
        OURA_CLIENT_SECRET: 'secret',
        STRAVA_CLIENT_ID: 'id',
        STRAVA_CLIENT_SECRET: 's',
        STRAVA_ENABLED: 'false',
      },
    });
    dev = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
  });

  test('GET /v2/integrations: public; web providers this deployment can connect, SDK sources apart', async () => {
    const response = await service.app.inject({ method: 'GET', url: '/v2/integrations' });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.status, 'success');
    assert.deepEqual(body.providers, ['OURA', 'SANDBOX']);
    assert.deepEqual(body.sdk_resource, ['APPLE', 'GOOGLEFIT', 'HEALTH_CONNECT', 'SAMSUNG']);
    assert.deepEqual(body.sdk_providers, body.sdk_resource);
  });

  test('detailed: every web provider with setup; without credentials listed but not enabled', async () => {
    const entries = await detailed();
    const byId = new Map(entries.map((entry) => [entry.provider, entry]));
    assert.equal(byId.has('APPLE'), false, 'SDK integrations only with sdk=true');
    assert.deepEqual(
      { ...byId.get('OURA'), types: undefined },
      {
        provider: 'OURA',
        name: 'Oura',
        icon: 'http://127.0.0.1:8080/v2/static/icons/oura.svg',
        setup: 'API_KEYS_MANAGED',
        enabled: true,
        sdk: false,
        types: undefined,
        scopes: ['email', 'personal', 'daily', 'heartrate', 'workout', 'tag', 'session', 'spo2'],
        writes_planned_workouts: false,
        history_days: null,
      },
    );
    assert.deepEqual(byId.get('OURA')?.types, {
      activity: true,
      body: true,
      nutrition: false,
      daily: true,
      sleep: true,
      menstruation: false,
      athlete: true,
      hormone: false,
      plannedWorkout: false,
    });
    assert.equal(byId.get('WHOOP')?.enabled, false);
    assert.equal(byId.get('WHOOP')?.setup, 'NOT_CONFIGURED');
    assert.equal(byId.get('STRAVA')?.setup, 'DISABLED');
    assert.equal(byId.get('COROS')?.setup, 'DISABLED', 'unverified providers are off by default');
    assert.equal(byId.get('SANDBOX')?.setup, 'BUILT_IN');
    assert.equal(
      Object.values(byId.get('SANDBOX')?.types ?? {}).every(Boolean),
      true,
      'the sandbox offers every type',
    );

    const withSdk = await detailed('?sdk=true');
    assert.equal(withSdk.find((entry) => entry.provider === 'APPLE')?.sdk, true);
    assert.equal(
      (await detailed('?sdk=false')).some((entry) => entry.sdk),
      false,
    );
    const invalid = problemOf(
      await service.app.inject({ method: 'GET', url: '/v2/integrations/detailed?sdk=maybe' }),
    );
    assert.equal(invalid.status, 400);
    assert.match(invalid.body.detail, /^invalid sdk/);
  });

  test('detailed with a dev-id: narrowed to the developer’s enabled providers', async () => {
    const mine = await detailed('', { 'dev-id': dev.devId });
    assert.deepEqual(
      mine.map((entry) => entry.provider),
      ['OURA', 'SANDBOX'],
    );
    assert.equal(
      mine.every((entry) => entry.enabled),
      true,
    );
  });

  test('a dev-id of nobody answers exactly as a developer with nothing enabled', async () => {
    const nothing = await createDeveloper(service.ctx, { name: 'Nothing enabled' });
    const enabled = (await service.ctx.integrations.forDeveloper(nothing.devId))
      .filter((entry) => entry.enabled)
      .map((entry) => entry.provider);
    await service.ctx.integrations.setForDeveloper(nothing.devId, { enable: [], disable: enabled });
    const ask = (headers: Record<string, string>, query = '') =>
      service.app.inject({ method: 'GET', url: `/v2/integrations/detailed${query}`, headers });
    for (const query of ['', '?sdk=true']) {
      const empty = await ask({ 'dev-id': nothing.devId }, query);
      assert.equal(empty.statusCode, 200);
      assert.deepEqual(empty.json(), { status: 'success', providers: [] });
      for (const unknown of [{ 'dev-id': 'nope' }, { dev_id: 'acme-health-00000000' }] as Record<
        string,
        string
      >[]) {
        const answer = await ask(unknown, query);
        assert.equal(answer.statusCode, empty.statusCode);
        assert.equal(answer.body, empty.body);
        assert.equal(answer.headers['content-type'], empty.headers['content-type']);
      }
    }
    const byQuery = await service.app.inject({ method: 'GET', url: '/v2/integrations/detailed?dev_id=nope' });
    assert.deepEqual(byQuery.json(), { status: 'success', providers: [] });
  });

  test('per-developer choices: a disabled provider disappears and cannot be connected (404)', async () => {
    const developer = await createDeveloper(service.ctx, { name: 'Picky' });
    await service.ctx.integrations.setForDeveloper(developer.devId, { enable: [], disable: ['OURA'] });
    assert.deepEqual(
      (await detailed(`?dev_id=${developer.devId}`)).map((entry) => entry.provider),
      ['SANDBOX'],
    );
    const refused = problemOf(
      await service.app.inject({
        method: 'POST',
        url: '/v2/auth/authenticateUser?resource=OURA',
        headers: developer.headers,
      }),
    );
    assert.equal(refused.status, 404);
    assert.match(refused.body.detail, /not enabled/);
    await authenticateUser(service.app, dev, 'OURA'); // another developer is unaffected
    await service.ctx.integrations.setForDeveloper(developer.devId, { enable: ['oura'], disable: [] });
    await authenticateUser(service.app, developer, 'OURA');
    await assert.rejects(
      service.ctx.integrations.setForDeveloper(developer.devId, { enable: ['WHOOP'], disable: [] }),
      /not enabled on this deployment/,
    );
    await assert.rejects(
      service.ctx.integrations.setForDeveloper(developer.devId, { enable: ['NOPE'], disable: [] }),
      /unknown provider/,
    );
  });

  test('icons are served by Tributary as SVG', async () => {
    const icon = await service.app.inject({ method: 'GET', url: '/v2/static/icons/sandbox.svg' });
    assert.equal(icon.statusCode, 200);
    assert.match(String(icon.headers['content-type']), /^image\/svg\+xml/);
    assert.match(icon.body, /^<svg [^>]*>.*<text [^>]*>SB<\/text><\/svg>$/);
    for (const entry of await detailed('?sdk=true')) {
      const response = await service.app.inject({ method: 'GET', url: new URL(entry.icon).pathname });
      assert.equal(response.statusCode, 200, entry.icon);
    }
    assert.equal(
      (await service.app.inject({ method: 'GET', url: '/v2/static/icons/nope.svg' })).statusCode,
      404,
    );
    assert.equal(
      (await service.app.inject({ method: 'GET', url: '/v2/static/icons/..%2Fetc.svg' })).statusCode,
      404,
    );
  });
});

describe('provider registry', () => {
  const config = (env: Record<string, string> = {}) =>
    loadConfig({
      DATA_DIR: '/tmp/tributary-registry-test',
      ENCRYPTION_KEY: 'a'.repeat(64),
      PUBLIC_URL: 'https://tributary.example',
      ...env,
    });

  test('every declaration is valid, and the registry key is its id', () => {
    const catalog = createProviderCatalog(config());
    for (const provider of catalog.list())
      assert.equal(providerRegistry[provider.id].declaration.id, provider.id);
  });

  test('a web provider without a working connector is never offered, even switched on (COROS)', () => {
    const catalog = createProviderCatalog(
      config({ COROS_ENABLED: 'true', COROS_CLIENT_ID: 'id', COROS_CLIENT_SECRET: 'secret' }),
    );
    const coros = catalog.get('COROS');
    assert.equal(coros?.connector?.data, undefined, 'COROS has no connector yet');
    assert.equal(coros?.enabled, false);
    assert.equal(coros?.setup, 'DISABLED');
    // The rule, for every provider: enabled web providers all read data through a connector.
    const everything = Object.fromEntries(
      Object.keys(providerRegistry).flatMap((id) => [
        [`${id}_CLIENT_ID`, 'id'],
        [`${id}_CLIENT_SECRET`, 'secret'],
        [`${id}_ENABLED`, 'true'],
      ]),
    );
    const all = createProviderCatalog(config(everything)).list();
    for (const provider of all) {
      if (provider.declaration.authKind === 'sdk') continue;
      assert.equal(
        provider.enabled,
        provider.connector?.data !== undefined,
        `${provider.id}: enabled exactly when it has a connector`,
      );
    }
    assert.ok(
      all.some((provider) => provider.id === 'WAHOO' && provider.enabled),
      'a built connector is offered',
    );
  });

  test('<ID>_BASE_URL sends every endpoint of that provider, whatever its host, to one origin', () => {
    const oura = createProviderCatalog(config({ OURA_BASE_URL: 'http://127.0.0.1:9999/prefix/' })).get(
      'oura',
    );
    assert.equal(oura?.oauth?.authorizeUrl, 'http://127.0.0.1:9999/prefix/oauth/authorize');
    assert.equal(oura?.oauth?.tokenUrl, 'http://127.0.0.1:9999/prefix/oauth/token');
    assert.equal(oura?.oauth?.revoke?.url, 'http://127.0.0.1:9999/prefix/oauth/revoke');
    const account = oura?.oauth?.accountId;
    assert.equal(
      account?.from === 'userinfo' ? account.url : '',
      'http://127.0.0.1:9999/prefix/v2/usercollection/personal_info',
    );
    const sandbox = createProviderCatalog(config()).get('SANDBOX');
    assert.equal(
      sandbox?.oauth?.authorizeUrl,
      'https://tributary.example/providers/sandbox/consent',
      'hosted by us',
    );
  });

  test('bad provider settings stop the boot', () => {
    assert.throws(() => createProviderCatalog(config({ OURA_CLIENT_ID: 'only-id' })), ConfigError);
    assert.throws(() => createProviderCatalog(config({ OURA_BASE_URL: 'ftp://x' })), ConfigError);
    assert.throws(() => createProviderCatalog(config({ OURA_ENABLED: 'yes' })), ConfigError);
  });

  test('declarations are validated as data', () => {
    const broken = {
      ...providerRegistry,
      OURA: {
        declaration: {
          ...providerRegistry.OURA.declaration,
          dataTypes: ['sleep', 'dreams'],
          icon: { initials: 'OURA', background: 'blue' },
        },
      },
    } as unknown as typeof providerRegistry;
    assert.throws(
      () => createProviderCatalog(config(), broken),
      (error: unknown) =>
        error instanceof ConfigError &&
        /OURA: icon initials/.test(error.message) &&
        /OURA: unknown data type "dreams"/.test(error.message) &&
        /OURA: icon background/.test(error.message),
    );
  });
});

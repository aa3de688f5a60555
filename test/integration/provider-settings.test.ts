// Provider credentials from the operator dashboard, over a real socket: the operator stores a
// provider's OAuth client id and secret (sealed), the provider is then offered in /v2/integrations
// and its auth links carry the stored client id; a variable set in the environment wins over a
// stored one, and the page says so. Only the operator, only with the form token, audit-logged.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/core/config.ts';
import { createLogger } from '../../src/core/log.ts';
import { createJobQueue } from '../../src/jobs/queue.ts';
import { createContext } from '../../src/runtime/context.ts';
import { providerSettings } from '../../src/provider-access/settings.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { formTokenIn } from '../helpers/dashboard.ts';
import { until } from '../helpers/until.ts';

const OPERATOR_TOKEN = 'operator-token-for-the-provider-settings-test-0123456789';

/** A browser over HTTP: keeps cookies, never follows redirects (the test reads each one). */
class HttpBrowser {
  readonly cookies = new Map<string, string>();
  private readonly origin: string;
  constructor(origin: string) {
    this.origin = origin;
  }

  private remember(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private cookieHeader() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async get(path: string) {
    const response = await fetch(`${this.origin}${path}`, {
      headers: { cookie: this.cookieHeader() },
      redirect: 'manual',
    });
    this.remember(response);
    return {
      status: response.status,
      location: response.headers.get('location'),
      body: await response.text(),
    };
  }

  async post(path: string, form: Record<string, string | string[]>) {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form))
      for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
    const response = await fetch(`${this.origin}${path}`, {
      method: 'POST',
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
      redirect: 'manual',
    });
    this.remember(response);
    return {
      status: response.status,
      location: response.headers.get('location'),
      body: await response.text(),
    };
  }
}

describe('provider credentials from the operator dashboard', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let origin: string;
  let operator: HttpBrowser;
  const page = '/dashboard/operator/providers';

  before(async () => {
    service = await startTestService({
      work: false,
      env: {
        OPERATOR_TOKEN,
        // The environment sets STRAVA's credentials: a stored value must never replace them.
        STRAVA_CLIENT_ID: 'strava-id-from-env',
        STRAVA_CLIENT_SECRET: 'strava-secret-from-env',
      },
    });
    developer = await createDeveloper(service.ctx);
    origin = await service.app.listen({ host: '127.0.0.1', port: 0 });
    operator = new HttpBrowser(origin);
    const signIn = await operator.get('/dashboard');
    const signedIn = await operator.post('/dashboard/operator/sign-in', {
      csrf: formTokenIn(signIn.body),
      operator_token: OPERATOR_TOKEN,
    });
    assert.equal(signedIn.status, 303, signedIn.body);
  });
  after(async () => service?.close());

  const integrations = async () =>
    ((await (await fetch(`${origin}/v2/integrations`)).json()) as { providers: string[] }).providers;

  const authLinkClientId = async (resource: string) => {
    const response = await fetch(`${origin}/v2/auth/authenticateUser?resource=${resource}`, {
      method: 'POST',
      headers: { ...developer.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ reference_id: `ref-${resource}` }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    const { auth_url } = (await response.json()) as { auth_url: string };
    return new URL(auth_url).searchParams.get('client_id');
  };

  const storedRows = (provider: string) =>
    service.ctx.db
      .selectFrom('provider_settings')
      .select(['name', 'value_sealed'])
      .where('provider', '=', provider)
      .orderBy('name')
      .execute();

  test('a stored client id and secret enable the provider in /v2/integrations; they are sealed and audit-logged by name only', async () => {
    assert.ok(!(await integrations()).includes('OURA'), 'OURA is not offered without credentials');
    const before = await operator.get(page);
    assert.equal(before.status, 200);
    assert.match(before.body, /id="provider-OURA"/);
    assert.match(before.body, /OURA_CLIENT_ID/);

    // Half a pair is refused as the boot would refuse it, and nothing is written.
    const half = await operator.post(`${page}/OURA`, {
      csrf: formTokenIn(before.body),
      CLIENT_ID: 'oura-stored-id',
    });
    assert.equal(half.status, 303);
    const refused = await operator.get(half.location!);
    assert.match(refused.body, /OURA_CLIENT_ID and OURA_CLIENT_SECRET must be set together/);
    assert.deepEqual(await storedRows('OURA'), []);

    const saved = await operator.post(`${page}/OURA`, {
      csrf: formTokenIn(refused.body),
      CLIENT_ID: 'oura-stored-id',
      CLIENT_SECRET: 'oura-stored-secret',
    });
    assert.equal(saved.status, 303, saved.body);
    const after = await operator.get(page);
    assert.match(after.body, /OURA settings saved \(it is enabled\)/);
    assert.match(after.body, /oura-stored-id/, 'the client id in effect is shown');
    assert.ok(!after.body.includes('oura-stored-secret'), 'the secret is never shown back');

    assert.ok((await integrations()).includes('OURA'), 'OURA is offered with stored credentials');
    assert.equal(await authLinkClientId('OURA'), 'oura-stored-id');

    const rows = await storedRows('OURA');
    assert.deepEqual(
      rows.map((row) => row.name),
      ['CLIENT_ID', 'CLIENT_SECRET'],
    );
    for (const row of rows) assert.ok(!row.value_sealed.includes('oura-stored'), 'sealed at rest');
    assert.equal(service.ctx.secretBox.open(rows[1]!.value_sealed), 'oura-stored-secret');

    const audit = await service.ctx.dashboard.auditLog({}, 10);
    const entry = audit.find((each) => each.action === 'provider.settings');
    assert.equal(entry?.target, 'OURA +CLIENT_ID +CLIENT_SECRET');
    assert.equal(entry?.actor, 'operator');

    // Removing the stored pair takes the provider away again.
    const removed = await operator.post(`${page}/OURA`, {
      csrf: formTokenIn(after.body),
      clear: ['CLIENT_ID', 'CLIENT_SECRET'],
    });
    assert.equal(removed.status, 303);
    assert.deepEqual(await storedRows('OURA'), []);
    assert.ok(!(await integrations()).includes('OURA'));
  });

  test('an environment variable wins over a stored value, and the page says which is in effect', async () => {
    const before = await operator.get(page);
    const saved = await operator.post(`${page}/STRAVA`, {
      csrf: formTokenIn(before.body),
      CLIENT_ID: 'strava-stored-id',
      CLIENT_SECRET: 'strava-stored-secret',
    });
    assert.equal(saved.status, 303, saved.body);
    const after = await operator.get(page);
    assert.match(
      after.body,
      /STRAVA_CLIENT_ID, STRAVA_CLIENT_SECRET are set in the environment, which wins over the stored value/,
    );
    const card = after.body.slice(after.body.indexOf('id="provider-STRAVA"'));
    assert.match(
      card.slice(0, card.indexOf('</section>')),
      /STRAVA_CLIENT_ID is set in the environment and wins over the stored value/,
    );
    assert.match(card, /strava-id-from-env/);
    assert.ok(!card.slice(0, card.indexOf('</section>')).includes('strava-stored-id'));
    assert.equal((await storedRows('STRAVA')).length, 2, 'stored all the same');
    assert.equal(await authLinkClientId('STRAVA'), 'strava-id-from-env');
  });

  test('another process on the same store hears the change and resolves the stored credentials too', async () => {
    const log = createLogger('silent');
    const config = loadConfig({
      DATA_DIR: service.config.dataDir,
      ENCRYPTION_KEY: service.config.encryptionKey.toString('hex'),
      PUBLIC_URL: service.config.publicUrl,
      LOG_LEVEL: 'silent',
      ...(service.config.databaseUrl ? { DATABASE_URL: service.config.databaseUrl } : {}),
    });
    const other = createContext({
      config,
      store: service.store,
      jobs: createJobQueue(service.store, log),
      log,
    });
    await other.providerSettings.start();
    assert.equal(other.providers.get('OURA')?.enabled, false);
    await service.ctx.providerSettings.save('OURA', {
      CLIENT_ID: 'second-id',
      CLIENT_SECRET: 'second-secret',
    });
    await until('the other process enables OURA', () => other.providers.get('OURA')?.enabled === true);
    assert.equal(other.providers.get('OURA')?.credentials?.clientId, 'second-id');
  });

  test("a setting the provider's declaration names (SUUNTO's API subscription key) is stored and resolved too", async () => {
    const view = await operator.get(page);
    const card = view.body.slice(view.body.indexOf('id="provider-SUUNTO"'));
    assert.match(card.slice(0, card.indexOf('</section>')), /SUUNTO_SUBSCRIPTION_KEY/);
    const saved = await operator.post(`${page}/SUUNTO`, {
      csrf: formTokenIn(view.body),
      CLIENT_ID: 'suunto-id',
      CLIENT_SECRET: 'suunto-secret',
      SUBSCRIPTION_KEY: 'suunto-subscription-key',
    });
    assert.equal(saved.status, 303);
    const resolved = service.ctx.config.settings.forProvider(providerSettings, 'SUUNTO');
    assert.equal(resolved.extra.SUBSCRIPTION_KEY, 'suunto-subscription-key');
    assert.deepEqual(resolved.credentials, { clientId: 'suunto-id', clientSecret: 'suunto-secret' });
    assert.ok(
      !(await operator.get(page)).body.includes('suunto-subscription-key'),
      'a key is never shown back',
    );
  });

  test('a stored set that no longer resolves (half a pair left in the table) is not used, and the page says why', async () => {
    await service.ctx.providerSettings.save('POLAR', {
      CLIENT_ID: 'polar-id',
      CLIENT_SECRET: 'polar-secret',
    });
    assert.equal(service.ctx.providers.get('POLAR')?.enabled, true);
    await service.ctx.db
      .deleteFrom('provider_settings')
      .where('provider', '=', 'POLAR')
      .where('name', '=', 'CLIENT_SECRET')
      .execute();
    await service.ctx.providerSettings.reload();
    assert.equal(service.ctx.providers.get('POLAR')?.enabled, false);
    assert.ok(!(await integrations()).includes('POLAR'));
    const card = (await operator.get(page)).body.split('id="provider-POLAR"')[1]!.split('</section>')[0]!;
    assert.match(card, /stored, not in effect/);
    assert.match(card, /POLAR_CLIENT_ID and POLAR_CLIENT_SECRET must be set together/);
  });

  test('only the operator, and only with the form token', async () => {
    const countRows = async () => (await storedRows('WHOOP')).length;
    // Without the form token: refused, nothing stored.
    const noToken = await operator.post(`${page}/WHOOP`, { CLIENT_ID: 'x', CLIENT_SECRET: 'y' });
    assert.equal(noToken.status, 403);
    assert.equal(await countRows(), 0);
    // A developer's session: the page sends it away, the action refuses it.
    const dev = new HttpBrowser(origin);
    const signIn = await dev.get('/dashboard');
    const signedIn = await dev.post('/dashboard/sign-in', {
      csrf: formTokenIn(signIn.body),
      dev_id: developer.devId,
      api_key: developer.apiKey,
    });
    assert.equal(signedIn.status, 303);
    const view = await dev.get(page);
    assert.equal(view.status, 303);
    assert.equal(view.location, '/dashboard');
    const overview = await dev.get('/dashboard');
    const post = await dev.post(`${page}/WHOOP`, {
      csrf: formTokenIn(overview.body),
      CLIENT_ID: 'x',
      CLIENT_SECRET: 'y',
    });
    assert.equal(post.status, 401);
    assert.equal(await countRows(), 0);
    // The operator with the token stores the pair; a setting the provider does not have is refused by name.
    const pair = await operator.post(`${page}/WHOOP`, {
      csrf: formTokenIn((await operator.get(page)).body),
      CLIENT_ID: 'x',
      CLIENT_SECRET: 'y',
    });
    assert.equal(pair.status, 303);
    assert.equal(await countRows(), 2, 'a real pair is stored');
    await assert.rejects(
      service.ctx.providerSettings.save('WHOOP', { BASE_URL: 'http://x' }),
      /has no setting BASE_URL/,
    );
  });
});

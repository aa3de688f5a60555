import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LANGUAGES, MESSAGES } from '../../src/http/hosted/i18n.ts';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { callback, decideSandboxConsent, pathOf } from '../helpers/connections.ts';
import { formToken, formTokenOf } from '../helpers/widget.ts';

describe('hosted connect widget', () => {
  let service: TestService;
  let dev: TestDeveloper;
  // Real time plus a shift, or a fixed instant when a test needs exact boundaries.
  const clock = {
    shiftMs: 0,
    fixed: null as Date | null,
    now: () => clock.fixed ?? new Date(Date.now() + clock.shiftMs),
  };

  async function createSession(payload: object = {}, developer = dev) {
    const response = await service.app.inject({
      method: 'POST',
      url: '/v2/auth/generateWidgetSession',
      headers: developer.headers,
      payload,
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as { session_id: string; url: string; status: string; expires_in: number };
  }
  const open = (url: string) => service.app.inject({ method: 'GET', url: pathOf(url) });
  // As a browser does: the form's token comes from the page (the token of a session is stable).
  const choose = async (url: string, provider: string) => {
    const token = formToken((await open(url)).body) ?? formTokenOf(service, url);
    return service.app.inject({
      method: 'POST',
      url: `${pathOf(url)}/connect`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ provider, csrf_token: token }).toString(),
    });
  };

  before(async () => {
    service = await startTestService({ clock, env: { OURA_CLIENT_ID: 'id', OURA_CLIENT_SECRET: 'secret' } });
    dev = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
  });

  test('generateWidgetSession returns {session_id, url, status, expires_in}', async () => {
    const session = await createSession({ reference_id: 'w-1' });
    assert.equal(session.status, 'success');
    assert.equal(session.expires_in, 900);
    assert.equal(session.url, `http://127.0.0.1:8080/widget/session/${session.session_id}`);
    const empty = await service.app.inject({
      method: 'POST',
      url: '/v2/auth/generateWidgetSession',
      headers: dev.headers,
    });
    assert.equal(empty.statusCode, 200, 'no body at all is fine');
  });

  test('the page lists the enabled providers with icons, as buttons, safely served', async () => {
    const session = await createSession();
    const page = await open(session.url);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<html lang="en">/);
    assert.match(page.body, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    const offered = [...page.body.matchAll(/<button[^>]*name="provider" value="([A-Z_0-9]+)"/g)].map(
      (match) => match[1],
    );
    assert.deepEqual(offered, ['OURA', 'SANDBOX']);
    assert.match(page.body, /<img src="\/v2\/static\/icons\/sandbox\.svg"/);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(page.body.includes(dev.devId), false, 'no dev-id in the page');
    assert.equal(page.body.includes(dev.apiKey), false, 'no API key in the page');
    assert.equal(page.body.includes('<script'), false);
  });

  test('a providers subset, in the order asked; unknown or SDK providers are a 400', async () => {
    const session = await createSession({ providers: 'sandbox, OURA' });
    const page = await open(session.url);
    const offered = [...page.body.matchAll(/name="provider" value="([A-Z_0-9]+)"/g)].map((match) => match[1]);
    assert.deepEqual(offered, ['SANDBOX', 'OURA']);
    const unknown = problemOf(
      await service.app.inject({
        method: 'POST',
        url: '/v2/auth/generateWidgetSession',
        headers: dev.headers,
        payload: { providers: 'NOPE' },
      }),
    );
    assert.equal(unknown.body.detail, 'invalid providers: unknown provider "NOPE"');
    const sdk = problemOf(
      await service.app.inject({
        method: 'POST',
        url: '/v2/auth/generateWidgetSession',
        headers: dev.headers,
        payload: { providers: ['APPLE'] },
      }),
    );
    assert.match(sdk.body.detail, /^invalid providers: APPLE/);
    const redirect = problemOf(
      await service.app.inject({
        method: 'POST',
        url: '/v2/auth/generateWidgetSession',
        headers: dev.headers,
        payload: { auth_success_redirect_url: 'nope' },
      }),
    );
    assert.match(redirect.body.detail, /^invalid auth_success_redirect_url/);
    assert.equal(
      (await service.app.inject({ method: 'POST', url: '/v2/auth/generateWidgetSession', payload: {} }))
        .statusCode,
      401,
    );
  });

  test('languages: every supported one renders; unknown ones and regions fall back', async () => {
    for (const language of LANGUAGES) {
      const page = await open((await createSession({ language })).url);
      assert.match(page.body, new RegExp(`<html lang="${language}">`));
      assert.ok(page.body.includes(MESSAGES[language].widgetTitle), language);
    }
    assert.match((await open((await createSession({ language: 'pt-BR' })).url)).body, /<html lang="pt">/);
    assert.match((await open((await createSession({ language: 'klingon' })).url)).body, /<html lang="en">/);
  });

  test('choosing a provider runs the auth-link flow; after completion the widget cannot be reused', async () => {
    const session = await createSession({
      reference_id: 'widget-user',
      language: 'de',
      auth_success_redirect_url: 'https://app.example/done',
    });
    const chosen = await choose(session.url, 'SANDBOX');
    assert.equal(chosen.statusCode, 303);
    const consent = new URL(String(chosen.headers.location));
    assert.equal(consent.searchParams.get('ui_locales'), 'de');
    const consentPage = await service.app.inject({ method: 'GET', url: pathOf(consent) });
    assert.match(consentPage.body, /<html lang="de">/);
    const landed = await callback(service.app, await decideSandboxConsent(service.app, consent, 'approve'));
    const location = new URL(String(landed.headers.location));
    assert.equal(location.origin + location.pathname, 'https://app.example/done');
    assert.equal(location.searchParams.get('reference_id'), 'widget-user');
    const userId = location.searchParams.get('user_id') ?? '';
    const events = await service.ctx.webhooks.listDeliveries(dev.devId, { type: 'auth' });
    assert.ok(events.deliveries.some((delivery) => delivery.userId === userId));

    const reopened = await open(session.url);
    assert.equal(reopened.statusCode, 410);
    assert.ok(reopened.body.includes(MESSAGES.de.usedTitle));
    assert.equal((await choose(session.url, 'SANDBOX')).statusCode, 410);
  });

  test('expired and unknown sessions; a provider outside the list is not started', async () => {
    const session = await createSession({ providers: 'OURA' });
    const refused = await choose(session.url, 'SANDBOX');
    assert.equal(refused.statusCode, 200, 'shows the picker again');
    assert.equal(refused.headers.location, undefined);
    clock.shiftMs = 901_000;
    try {
      const expired = await open(session.url);
      assert.equal(expired.statusCode, 410);
      assert.ok(expired.body.includes(MESSAGES.en.expiredTitle));
    } finally {
      clock.shiftMs = 0;
    }
    assert.equal(
      (await open('http://x/widget/session/00000000-0000-4000-8000-000000000000')).statusCode,
      404,
    );
    assert.equal((await open('http://x/widget/session/not-a-uuid')).statusCode, 404);
  });

  test('a session lasts exactly 900 s: open at +899 s, expired at +900 s', async () => {
    const createdAt = new Date('2026-06-01T08:00:00Z');
    clock.fixed = createdAt;
    try {
      const session = await createSession();
      const stored = await service.ctx.db
        .selectFrom('widget_sessions')
        .select('expires_at')
        .where('id', '=', session.session_id)
        .executeTakeFirstOrThrow();
      assert.equal(stored.expires_at.getTime() - createdAt.getTime(), 900_000);

      clock.fixed = new Date(createdAt.getTime() + 899_000);
      const stillOpen = await open(session.url);
      assert.equal(stillOpen.statusCode, 200);
      assert.ok(!stillOpen.body.includes(MESSAGES.en.expiredTitle));

      clock.fixed = new Date(createdAt.getTime() + 900_000);
      const expired = await open(session.url);
      assert.equal(expired.statusCode, 410);
      assert.ok(expired.body.includes(MESSAGES.en.expiredTitle));
      const late = await choose(session.url, 'SANDBOX');
      assert.equal(late.headers.location, undefined, 'an expired session starts no connection');
    } finally {
      clock.fixed = null;
    }
  });

  test('default outcome pages when no redirect URL was given', async () => {
    const success = await service.app.inject({ method: 'GET', url: '/auth/success?lang=fr&user_id=x' });
    assert.equal(success.statusCode, 200);
    assert.ok(success.body.includes(MESSAGES.fr.successTitle));
    const failure = await service.app.inject({ method: 'GET', url: '/auth/failure?reason=access_denied' });
    assert.ok(failure.body.includes(MESSAGES.en.failureTitle));
  });
});

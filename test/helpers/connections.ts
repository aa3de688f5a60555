import assert from 'node:assert/strict';
import type { App } from '../../src/http/app-type.ts';
import { followAuthorize } from '../fakes/fake-server.ts';
import type { TestDeveloper, TestService } from './app.ts';
import { until } from './until.ts';

/** Path and query of an absolute URL, for `app.inject`. */
export const pathOf = (url: string | URL) => {
  const parsed = typeof url === 'string' ? new URL(url) : url;
  return `${parsed.pathname}${parsed.search}`;
};

export async function authenticateUser(
  app: App,
  developer: TestDeveloper,
  resource: string,
  body: Record<string, unknown> = {},
): Promise<{ userId: string; authUrl: URL }> {
  const response = await app.inject({
    method: 'POST',
    url: `/v2/auth/authenticateUser?resource=${resource}`,
    headers: developer.headers,
    payload: body,
  });
  assert.equal(response.statusCode, 200, response.body);
  const json = response.json() as { status: string; user_id: string; auth_url: string };
  assert.equal(json.status, 'success');
  return { userId: json.user_id, authUrl: new URL(json.auth_url) };
}

/** Submits the sandbox consent form (as the hosted page's buttons do); returns the redirect. */
export async function decideSandboxConsent(
  app: App,
  authUrl: URL,
  decision: 'approve' | 'deny',
  account = 'sandbox-test',
): Promise<URL> {
  const form = new URLSearchParams(authUrl.search);
  form.set('decision', decision);
  form.set('account', account);
  const response = await app.inject({
    method: 'POST',
    url: authUrl.pathname,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form.toString(),
  });
  assert.equal(response.statusCode, 303, response.body);
  return new URL(String(response.headers.location));
}

/** Delivers the provider's redirect to our callback; returns the response (302 or an error page). */
export async function callback(app: App, location: URL) {
  return app.inject({ method: 'GET', url: pathOf(location) });
}

/** A whole sandbox connection through the HTTP flow; returns the user id and the final redirect. */
export async function connectSandboxUser(
  app: App,
  developer: TestDeveloper,
  options: { referenceId?: string; account?: string; successUrl?: string } = {},
): Promise<{ userId: string; landing: URL }> {
  const { userId, authUrl } = await authenticateUser(app, developer, 'SANDBOX', {
    ...(options.referenceId ? { reference_id: options.referenceId } : {}),
    ...(options.successUrl ? { auth_success_redirect_url: options.successUrl } : {}),
  });
  const back = await decideSandboxConsent(
    app,
    authUrl,
    'approve',
    options.account ?? `acct-${userId.slice(0, 8)}`,
  );
  const response = await callback(app, back);
  assert.equal(response.statusCode, 302, response.body);
  return { userId, landing: new URL(String(response.headers.location)) };
}

/**
 * A whole connection through a provider's fake: the auth link (its consent page must be the
 * fake's), the fake's consent as a browser follows it, and our callback (a 302 to the app).
 * Returns the user id and where the callback sent the browser.
 */
export async function connectThroughFake(
  app: App,
  developer: TestDeveloper,
  provider: string,
  fake: { baseUrl: string },
  referenceId: string,
): Promise<{ userId: string; landing: string }> {
  const link = await authenticateUser(app, developer, provider, { reference_id: referenceId });
  assert.equal(link.authUrl.origin, fake.baseUrl, 'the consent page is the fake provider’s');
  const back = await followAuthorize(link.authUrl.toString());
  const landing = await app.inject({ method: 'GET', url: pathOf(back) });
  assert.equal(landing.statusCode, 302, landing.body);
  return { userId: link.userId, landing: String(landing.headers.location) };
}

/** Awaits a connection's stored scopes becoming `scopes` (a provider's permission change, processed). */
export async function untilScopes(service: TestService, userId: string, scopes: string): Promise<void> {
  await until(
    `the scopes of ${userId} stored as "${scopes}"`,
    async () =>
      (
        await service.ctx.db
          .selectFrom('connections')
          .select('scopes')
          .where('id', '=', userId)
          .executeTakeFirst()
      )?.scopes === scopes,
  );
}

/**
 * Awaits every type's backfill of a connection being done: `types` of them when given (a type
 * whose backfill never starts fails the wait, rather than passing with the others), else at least
 * one. Returns the progress rows.
 */
export function untilBackfilled(
  service: TestService,
  userId: string,
  options: { types?: number; timeoutMs?: number; what?: string } = {},
) {
  const { types, timeoutMs = 120_000, what = 'the backfill' } = options;
  return until(what, () => service.ctx.connectors.backfill.progress(userId), {
    done: (rows) =>
      (types === undefined ? rows.length > 0 : rows.length === types) &&
      rows.every((row) => row.status === 'done'),
    timeoutMs,
  });
}

// The SANDBOX provider as an OAuth2 server, through its hosted HTTP endpoints: the consent page
// checks the authorize request like a real provider would, and the token endpoint enforces PKCE
// server-side (a wrong or missing code_verifier gets no tokens), the redirect URI of the
// authorization, the code's ten-minute lifetime (on a controlled clock) and single use.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { oauthCallbackUrl } from '../../src/provider-kit/callback-url.ts';
import { startTestService, type TestService } from '../helpers/app.ts';

const CONSENT = '/providers/sandbox/consent';
const TOKEN = '/providers/sandbox/token';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
// RFC 7636 appendix B: the S256 challenge of the verifier above.
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('SANDBOX OAuth server: consent and token endpoint', () => {
  let service: TestService;
  let redirectUri: string;
  const clock = { current: new Date('2026-05-01T10:00:00Z') };

  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const authorizeRequest = (overrides: Record<string, string> = {}) => ({
    response_type: 'code',
    redirect_uri: redirectUri,
    state: 'state-1',
    scope: 'activity sleep',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    ...overrides,
  });
  const postForm = (url: string, fields: Record<string, string>) =>
    service.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form(fields),
    });

  /** Approves on the consent page and returns the code the browser is sent back with. */
  async function issueCode(account = 'pkce-account'): Promise<string> {
    const response = await postForm(CONSENT, { ...authorizeRequest(), decision: 'approve', account });
    assert.equal(response.statusCode, 303, response.body);
    const location = new URL(String(response.headers.location));
    assert.equal(`${location.origin}${location.pathname}`, redirectUri);
    assert.equal(location.searchParams.get('state'), 'state-1');
    assert.equal(location.searchParams.get('scope'), 'activity sleep');
    return String(location.searchParams.get('code'));
  }

  const exchange = (code: string, overrides: Record<string, string | undefined> = {}) => {
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: VERIFIER,
      ...overrides,
    })) {
      if (value !== undefined) fields[name] = value;
    }
    return postForm(TOKEN, fields);
  };

  const expectInvalidGrant = async (response: Awaited<ReturnType<typeof exchange>>, description: string) => {
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.deepEqual(response.json(), { error: 'invalid_grant', error_description: description });
  };

  before(async () => {
    service = await startTestService({ work: false, clock: { now: () => clock.current } });
    redirectUri = oauthCallbackUrl(service.config.publicUrl, 'SANDBOX');
  });
  after(async () => {
    await service?.close();
  });

  test('the RFC 7636 vector: the challenge is the S256 of the verifier', () => {
    assert.equal(createHash('sha256').update(VERIFIER).digest('base64url'), CHALLENGE);
  });

  test('the right verifier gets tokens for the approved account and scopes, once', async () => {
    const code = await issueCode('alice.sandbox');
    const response = await exchange(code);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
    const tokens = response.json() as Record<string, unknown>;
    assert.match(String(tokens.access_token), /^sbx_at_[A-Za-z0-9_-]{32}$/);
    assert.match(String(tokens.refresh_token), /^sbx_rt_[A-Za-z0-9_-]{32}$/);
    assert.equal(tokens.token_type, 'Bearer');
    assert.equal(tokens.expires_in, 86_400);
    assert.equal(tokens.scope, 'activity sleep');
    assert.equal(tokens.account_id, 'alice.sandbox');
    await expectInvalidGrant(await exchange(code), 'code was already used');
  });

  test('a wrong or missing code_verifier gets no tokens, and does not use the code up', async () => {
    const code = await issueCode();
    const mismatch = 'code_verifier does not match the code_challenge';
    await expectInvalidGrant(await exchange(code, { code_verifier: `${VERIFIER.slice(1)}x` }), mismatch);
    await expectInvalidGrant(await exchange(code, { code_verifier: undefined }), mismatch);
    await expectInvalidGrant(await exchange(code, { code_verifier: CHALLENGE }), mismatch);
    assert.equal((await exchange(code)).statusCode, 200, 'the legitimate client still can');
  });

  test('the redirect_uri must be the one the code was issued for', async () => {
    const code = await issueCode();
    await expectInvalidGrant(
      await exchange(code, { redirect_uri: `${redirectUri}/elsewhere` }),
      'redirect_uri does not match the authorization',
    );
  });

  test('a code lives ten minutes: valid at the last millisecond, expired after it', async () => {
    const issuedAt = clock.current;
    const lastValid = await issueCode();
    const late = await issueCode();
    try {
      clock.current = new Date(issuedAt.getTime() + 10 * 60_000);
      assert.equal((await exchange(lastValid)).statusCode, 200);
      clock.current = new Date(issuedAt.getTime() + 10 * 60_000 + 1);
      await expectInvalidGrant(await exchange(late), 'code expired');
    } finally {
      clock.current = issuedAt;
    }
  });

  test('codes that were not issued here, or were altered, are refused', async () => {
    await expectInvalidGrant(await exchange('not-a-sandbox-code'), 'malformed code');
    const code = await issueCode();
    const altered = `${code.slice(0, -4)}${code.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    await expectInvalidGrant(await exchange(altered), 'code was not issued by this sandbox');
    await expectInvalidGrant(await exchange('sbxc_garbage'), 'code was not issued by this sandbox');
  });

  test('an incomplete token request is invalid_request', async () => {
    const code = await issueCode();
    for (const missing of ['grant_type', 'code', 'redirect_uri']) {
      const response = await exchange(code, { [missing]: undefined });
      assert.equal(response.statusCode, 400, missing);
      assert.deepEqual(response.json(), { error: 'invalid_request' }, missing);
    }
    const wrongGrant = await exchange(code, { grant_type: 'client_credentials' });
    assert.deepEqual(wrongGrant.json(), { error: 'invalid_request' });
  });

  test('the consent page refuses what a real provider refuses; deny goes back with access_denied', async () => {
    const page = await service.app.inject({ method: 'GET', url: `${CONSENT}?${form(authorizeRequest())}` });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, new RegExp(`value="${CHALLENGE}"`));
    for (const [change, why] of [
      [{ response_type: 'token' }, 'implicit grant'],
      [{ redirect_uri: 'https://attacker.example/cb' }, 'unregistered redirect'],
      [{ state: '' }, 'no state'],
      [{ code_challenge: '' }, 'no PKCE'],
      [{ code_challenge_method: 'plain' }, 'plain PKCE'],
    ] as const) {
      const refused = await service.app.inject({
        method: 'GET',
        url: `${CONSENT}?${form(authorizeRequest(change))}`,
      });
      assert.equal(refused.statusCode, 400, why);
      const posted = await postForm(CONSENT, {
        ...authorizeRequest(change),
        decision: 'approve',
        account: 'a',
      });
      assert.equal(posted.statusCode, 400, `${why} (approve)`);
    }
    const badAccount = await postForm(CONSENT, {
      ...authorizeRequest(),
      decision: 'approve',
      account: 'no spaces',
    });
    assert.equal(badAccount.statusCode, 400);

    const denied = await postForm(CONSENT, { ...authorizeRequest(), decision: 'deny' });
    const location = new URL(String(denied.headers.location));
    assert.equal(location.searchParams.get('error'), 'access_denied');
    assert.equal(location.searchParams.get('state'), 'state-1');
    assert.equal(location.searchParams.get('code'), null);
  });
});

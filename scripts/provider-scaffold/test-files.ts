// What the scaffold writes under test/: a real HTTP fake of the placeholder API on
// test/fakes/fake-server.ts, and the connector path test (test/helpers/connector-path.ts)
// marked `todo` until the provider speaks its real API.
import type { ProviderNames } from './names.ts';

export function fakeFile(n: ProviderNames): string {
  return `import { addDays, dayNumberToIsoDate, isIsoDate, isoDateToDayNumber, MS_PER_DAY } from '../../src/model/time.ts';
import {
  authorizeReply,
  type Consent,
  createTokenStore,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
  type Grant,
  type Route,
  randomId,
  seeded,
  startFakeServer,
} from './fake-server.ts';

/**
 * A local ${n.display} API, scaffolded by scripts/new-provider.ts: it speaks the scaffold's
 * placeholder API until it is rewritten from the provider's documentation (routes, token
 * lifetimes, error bodies, limits), as the other fakes in this folder are. OAuth2 with the client
 * credentials in the form body, 1 h access tokens, single-use refresh tokens replaced on every
 * refresh, RFC 7009 revocation; \`GET /v1/daily\` (\`start_date\` inclusive, \`end_date\` exclusive,
 * at most 31 days) and \`GET /v1/changes?since=\` (the days changed after an instant). Point
 * \`${n.id}_BASE_URL\` at \`baseUrl\`.
 */
export type ${n.pascal}Fake = FakeServer & {
  clientId: string;
  clientSecret: string;
  consent: Consent;
  grants: Grant[];
  /** The account's local calendar day now. */
  today(): string;
  /** Marks a day of the account as changed now: the next \`/v1/changes\` reports it. */
  change(date: string, account?: string): void;
  expireAccessTokens(): void;
};

const ACCESS_TTL = 3600;
const OFFSET_MINUTES = 60;
const MAX_DAYS = 31;

export async function start${n.pascal}Fake(): Promise<${n.pascal}Fake> {
  const clientId = \`${n.folder}-client-\${randomId(4)}\`;
  const clientSecret = \`${n.folder}-secret-\${randomId(12)}\`;
  const consent: Consent = { account: 'account-1', deny: false, grantScopes: null };
  const changes: { account: string; date: string; at: number }[] = [];
  let fake: ${n.pascal}Fake;
  let store: ReturnType<typeof createTokenStore>;

  const problem = (status: number, error: string, message: string): FakeReply => ({
    status,
    body: { error, message },
  });
  const today = () =>
    dayNumberToIsoDate(Math.floor((fake.clock.now() + OFFSET_MINUTES * 60_000) / MS_PER_DAY));

  function authorized(request: FakeRequest): Grant | FakeReply {
    const result = store.authenticate(request.bearer);
    return 'error' in result ? problem(401, 'invalid_token', \`access token \${result.error}\`) : result.grant;
  }

  function tokenReply(grant: Grant): FakeReply {
    return {
      status: 200,
      headers: { 'cache-control': 'no-store' },
      body: {
        access_token: grant.accessToken,
        token_type: 'Bearer',
        expires_in: ACCESS_TTL,
        refresh_token: grant.refreshToken,
        scope: grant.scopes.join(' '),
        user_id: grant.account,
      },
    };
  }

  function token(request: FakeRequest): FakeReply {
    const form = request.form;
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
      return problem(401, 'invalid_client', 'unknown client or wrong secret');
    }
    if (form.get('grant_type') === 'authorization_code') {
      const pending = store.takeCode(form.get('code') ?? '');
      if (!pending || pending.redirectUri !== form.get('redirect_uri')) {
        return problem(400, 'invalid_grant', 'unknown, used or mismatched code');
      }
      return tokenReply(store.createGrant(pending.account, pending.scopes, ACCESS_TTL, true));
    }
    if (form.get('grant_type') === 'refresh_token') {
      const found = store.byRefresh(form.get('refresh_token') ?? '');
      if (!found || found.retired || found.grant.revoked) {
        return problem(400, 'invalid_grant', 'refresh token already used or revoked');
      }
      store.renewAccess(found.grant, ACCESS_TTL);
      store.rotateRefresh(found.grant, true);
      return tokenReply(found.grant);
    }
    return problem(400, 'unsupported_grant_type', 'authorization_code or refresh_token');
  }

  /** RFC 7009: an unknown token is not an error. */
  function revoke(request: FakeRequest): FakeReply {
    const value = request.form.get('token');
    const grant = store.grants.find(
      (candidate) => candidate.accessToken === value || candidate.refreshToken === value,
    );
    if (grant) store.revoke(grant);
    return { status: 200 };
  }

  /** A deterministic day for any account and date. */
  function dayOf(account: string, date: string) {
    const random = seeded(\`${n.folder}|\${account}|\${date}\`);
    const steps = random.int(2_000, 16_000);
    return {
      date,
      utc_offset_minutes: OFFSET_MINUTES,
      steps,
      distance_meters: Math.round(steps * 0.75),
      active_calories: Math.round(steps * 0.04),
    };
  }

  function daily(request: FakeRequest): FakeReply {
    const grant = authorized(request);
    if (!('account' in grant)) return grant;
    const start = request.query.get('start_date') ?? '';
    const end = request.query.get('end_date') ?? '';
    if (!isIsoDate(start) || !isIsoDate(end) || end <= start) {
      return problem(400, 'invalid_request', 'start_date and end_date are dates, start before end');
    }
    if (isoDateToDayNumber(end) - isoDateToDayNumber(start) > MAX_DAYS) {
      return problem(400, 'invalid_request', \`at most \${MAX_DAYS} days a request\`);
    }
    const data = [];
    for (let date = start; date < end && date <= today(); date = addDays(date, 1)) {
      data.push(dayOf(grant.account, date));
    }
    return { status: 200, body: { data } };
  }

  function changed(request: FakeRequest): FakeReply {
    const grant = authorized(request);
    if (!('account' in grant)) return grant;
    const since = Date.parse(request.query.get('since') ?? '');
    if (Number.isNaN(since)) return problem(400, 'invalid_request', 'since is an ISO 8601 instant');
    const days = changes
      .filter((entry) => entry.account === grant.account && entry.at > since)
      .map((entry) => entry.date);
    return { status: 200, body: { days: [...new Set(days)].sort() } };
  }

  const routes: Route[] = [
    {
      method: 'GET',
      path: '/oauth/authorize',
      handler: (request) => authorizeReply(request, store, consent, { clientId, scopeSeparator: ' ' }),
    },
    { method: 'POST', path: '/oauth/token', handler: token },
    { method: 'POST', path: '/oauth/revoke', handler: revoke },
    { method: 'GET', path: '/v1/daily', handler: daily },
    { method: 'GET', path: '/v1/changes', handler: changed },
  ];

  const server = await startFakeServer({
    routes,
    faultReply(injected) {
      if (injected.kind === 'unauthorized') return problem(401, 'invalid_token', 'access token expired');
      if (injected.kind === 'server_error') {
        return problem(injected.status ?? 500, 'server_error', 'something went wrong');
      }
      return {
        ...problem(429, 'rate_limited', 'too many requests'),
        headers: { 'retry-after': String(injected.retryAfterSeconds ?? 60) },
      };
    },
  });
  store = createTokenStore(server.clock, '${n.folder}');

  fake = Object.assign(server, {
    clientId,
    clientSecret,
    consent,
    grants: store.grants,
    today,
    change(date: string, account = consent.account) {
      changes.push({ account, date, at: server.clock.now() });
    },
    expireAccessTokens: () => store.expireAccessTokens(),
  });
  return fake;
}
`;
}

export function pathTestFile(n: ProviderNames): string {
  return `import assert from 'node:assert/strict';
import { type ${n.pascal}Fake, start${n.pascal}Fake } from '../fakes/${n.folder}.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';

// ${n.display} end to end against its fake: connect, backfill, read, a change found by the
// scheduled poll (every 3 s here, through ${n.id}_POLL_MINUTES), refresh rotation, 429 and 5xx,
// revocation. The declaration is off by default, so the test switches it on.
runConnectorPath<${n.pascal}Fake>({
  provider: '${n.id}',
  todo: 'scaffolded by scripts/new-provider.ts: ${n.id} still speaks the placeholder API; rewrite src/providers/${n.folder}/ and test/fakes/${n.folder}.ts from its documentation, then remove this line',
  startFake: () => start${n.pascal}Fake(),
  env: { ${n.id}_ENABLED: 'true', ${n.id}_POLL_MINUTES: '0.05' },
  types: ['daily'],
  apiPrefix: '/v1/',
  tokenPath: '/oauth/token',
  pollOnly: true,
  async subscribe() {},
  async notify(fake, stored) {
    assert.ok((await stored('daily')).length > 0, 'stored days');
    fake.change(fake.today());
    return 'daily';
  },
  expireTokens: (fake) => fake.expireAccessTokens(),
});
`;
}

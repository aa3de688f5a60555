import { createHash, randomUUID } from 'node:crypto';
import {
  authorizeReply,
  basicCredentials,
  type Consent,
  createTokenStore,
  type Delivery,
  deliver,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
  type Grant,
  type Route,
  randomId,
  startFakeServer,
} from './fake-server.ts';
import { type GoogleHealthUser, isoDay } from './google-health-data.ts';
import { dataPointRoutes, googleError, unknownDataType } from './google-health-points.ts';

/**
 * A faithful local Google Health API v4 with Google's OAuth (providers.md §10, providers-3.md §3):
 * authorization code with PKCE (S256), `access_type=offline` for a refresh token, HTTP Basic client
 * authentication, refresh tokens that are not rotated, revocation at /revoke; users/me/identity and
 * profile; the data-point methods of google-health-points.ts (list, reconcile and dailyRollUp, with
 * the filter grammar of google-health-filters.ts and Google's page and range limits); granular
 * scopes (403 PERMISSION_DENIED for a data type whose scope was not granted); the per-user quota of
 * 300 requests a minute (429 RESOURCE_EXHAUSTED); subscriber notifications carrying the configured
 * `Authorization` secret, and the two-POST endpoint verification. Point `FITBIT_BASE_URL` at `baseUrl`.
 */
export type GoogleHealthFake = FakeServer & {
  clientId: string;
  clientSecret: string;
  consent: Consent;
  grants: Grant[];
  /** The subscriber's endpoint and `endpointAuthorization` secret (set in the Cloud project). */
  subscriber: { endpointUri: string; secret: string } | null;
  deliveries: Delivery[];
  perUserPerMinute: number;
  healthUserIdOf(account: string): string;
  /** The generated user behind an account (its seed and offset), to compute what Google holds. */
  userOf(account?: string): GoogleHealthUser;
  expireAccessTokens(): void;
  /** Google's endpoint verification: with the secret (must be 2xx) and without (must be 401/403). */
  verifyEndpoint(): Promise<{ withSecret: number; withoutSecret: number }>;
  /** A notification: `dataType` changed (UPSERT/DELETE) over [startMs, endMs). */
  notify(
    dataType: string,
    startMs: number,
    endMs: number,
    options?: { operation?: string; secret?: string; account?: string },
  ): Promise<Delivery>;
  /** The user deletes the `dataType` point that starts at `atMs` (in the Fitbit app). */
  deletePoint(dataType: string, atMs: number): void;
};

const SCOPE = 'https://www.googleapis.com/auth/googlehealth';
const SCOPES: Readonly<Record<string, string>> = {
  exercise: 'activity_and_fitness',
  steps: 'activity_and_fitness',
  distance: 'activity_and_fitness',
  floors: 'activity_and_fitness',
  'active-energy-burned': 'activity_and_fitness',
  'total-calories': 'activity_and_fitness',
  'daily-vo2-max': 'activity_and_fitness',
  sleep: 'sleep',
  'heart-rate': 'health_metrics_and_measurements',
  weight: 'health_metrics_and_measurements',
  'body-fat': 'health_metrics_and_measurements',
  'daily-resting-heart-rate': 'health_metrics_and_measurements',
  'daily-heart-rate-variability': 'health_metrics_and_measurements',
  'daily-respiratory-rate': 'health_metrics_and_measurements',
  'daily-oxygen-saturation': 'health_metrics_and_measurements',
  'daily-sleep-temperature-derivations': 'health_metrics_and_measurements',
  'nutrition-log': 'nutrition',
  'hydration-log': 'nutrition',
};
const ACCESS_TTL = 3599;
const oauthError = (status: number, error: string, description: string): FakeReply => ({
  status,
  body: { error, error_description: description },
});

export async function startGoogleHealthFake(
  options: { offsetMinutes?: number; historyDays?: number } = {},
): Promise<GoogleHealthFake> {
  const clientId = `${randomId(6)}.apps.googleusercontent.com`;
  const clientSecret = `GOCSPX-${randomId(12)}`;
  const consent: Consent = { account: 'account-1', deny: false, grantScopes: null };
  const deliveries: Delivery[] = [];
  const challenges = new Map<string, { challenge: string; offline: boolean }>();
  const usage = new Map<string, { minute: number; count: number }>();
  const historyDays = options.historyDays ?? 400;
  let fake: GoogleHealthFake;
  let store: ReturnType<typeof createTokenStore>;

  const deleted = new Set<string>();
  const healthUserIdOf = (account: string) =>
    createHash('sha256').update(`ghealth|${account}`).digest('hex').slice(0, 20);
  const userOf = (account: string): GoogleHealthUser => ({
    seed: `ghealth|${account}`,
    offsetMinutes: options.offsetMinutes ?? -300,
  });

  /**
   * A bearer token is required on every data call: none, an expired or a revoked one is 401
   * UNAUTHENTICATED (Google's standard answer, the error overview linked from the v4 error
   * catalogue). Past the per-user quota of 300 a minute (providers-3.md §3.1, from Google's
   * quota page) it is 429 RESOURCE_EXHAUSTED.
   */
  function authorized(request: FakeRequest): Grant | FakeReply {
    const result = store.authenticate(request.bearer);
    if ('error' in result)
      return googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.');
    const account = result.grant.account;
    const minute = Math.floor(fake.clock.now() / 60_000);
    const used = usage.get(account);
    const count = used && used.minute === minute ? used.count + 1 : 1;
    usage.set(account, { minute, count });
    if (count > fake.perUserPerMinute)
      return {
        ...googleError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded for quota metric per user per minute'),
        headers: { 'retry-after': '60' },
      };
    return result.grant;
  }

  /** [scopes] Google's consent is granular: a data type whose scope was not granted is 403. */
  function grantFor(request: FakeRequest, type: string): Grant | FakeReply {
    const grant = authorized(request);
    if (!('account' in grant)) return grant;
    const scope = SCOPES[type];
    if (!scope) return unknownDataType(type);
    if (!grant.scopes.includes(`${SCOPE}.${scope}.readonly`))
      return googleError(
        403,
        'PERMISSION_DENIED',
        `Request had insufficient authentication scopes for ${type}.`,
      );
    return grant;
  }

  function token(request: FakeRequest): FakeReply {
    const client = basicCredentials(request.headers);
    if (!client || client.id !== clientId || client.secret !== clientSecret)
      return oauthError(401, 'invalid_client', 'The OAuth client was not found.');
    const form = request.form;
    if (form.get('grant_type') === 'authorization_code') {
      const code = form.get('code') ?? '';
      const pkce = challenges.get(code);
      challenges.delete(code);
      const pending = store.takeCode(code);
      if (!pending || !pkce || pending.redirectUri !== form.get('redirect_uri'))
        return oauthError(400, 'invalid_grant', 'Malformed auth code.');
      if (
        createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url') !== pkce.challenge
      )
        return oauthError(400, 'invalid_grant', 'Invalid code verifier.');
      const grant = store.createGrant(pending.account, pending.scopes, ACCESS_TTL, pkce.offline);
      return tokenReply(grant, true);
    }
    if (form.get('grant_type') === 'refresh_token') {
      const found = store.byRefresh(form.get('refresh_token') ?? '');
      if (!found || found.retired || found.grant.revoked)
        return oauthError(400, 'invalid_grant', 'Token has been expired or revoked.');
      // Google keeps the refresh token: only a new access token comes back.
      store.renewAccess(found.grant, ACCESS_TTL);
      return tokenReply(found.grant, false);
    }
    return oauthError(400, 'unsupported_grant_type', 'Invalid grant_type.');
  }

  function tokenReply(grant: Grant, withRefresh: boolean): FakeReply {
    return {
      status: 200,
      body: {
        access_token: grant.accessToken,
        expires_in: ACCESS_TTL,
        ...(withRefresh && grant.refreshToken ? { refresh_token: grant.refreshToken } : {}),
        scope: grant.scopes.join(' '),
        token_type: 'Bearer',
      },
    };
  }

  const routes: Route[] = [
    {
      method: 'GET',
      path: '/o/oauth2/v2/auth',
      handler: (request) => {
        const challenge = request.query.get('code_challenge');
        if (!challenge || request.query.get('code_challenge_method') !== 'S256')
          return { status: 400, body: 'Error 400: invalid_request (code_challenge_method)' };
        const reply = authorizeReply(request, store, consent, { clientId, scopeSeparator: ' ' });
        const location = reply.headers?.location;
        const code = location ? new URL(location).searchParams.get('code') : null;
        if (code)
          challenges.set(code, { challenge, offline: request.query.get('access_type') === 'offline' });
        return reply;
      },
    },
    { method: 'POST', path: '/token', handler: token },
    {
      method: 'POST',
      path: '/revoke',
      handler: (request) => {
        const value = request.form.get('token') ?? '';
        const grant = store.grants.find(
          (candidate) => candidate.accessToken === value || candidate.refreshToken === value,
        );
        if (!grant) return oauthError(400, 'invalid_token', 'Token expired or revoked');
        store.revoke(grant);
        return { status: 200, body: {} };
      },
    },
    {
      method: 'GET',
      path: '/v4/users/me/identity',
      handler: (request) => {
        const grant = authorized(request);
        if (!('account' in grant)) return grant;
        return {
          status: 200,
          body: {
            name: 'users/me/identity',
            healthUserId: healthUserIdOf(grant.account),
            legacyUserId: 'B4F9Z2',
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/v4/users/me/profile',
      handler: (request) => {
        const grant = authorized(request);
        if (!('account' in grant)) return grant;
        if (!grant.scopes.includes(`${SCOPE}.profile.readonly`))
          return googleError(403, 'PERMISSION_DENIED', 'insufficient scopes');
        return {
          status: 200,
          body: { name: 'users/me/profile', age: 36, membershipStartDate: { year: 2019, month: 4, day: 2 } },
        };
      },
    },
    ...dataPointRoutes({
      now: () => fake.clock.now(),
      historyDays,
      userOf,
      deleted,
      grantFor,
    }),
  ];

  const server = await startFakeServer({
    routes,
    faultReply(injected) {
      if (injected.kind === 'unauthorized')
        return googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.');
      if (injected.kind === 'server_error')
        return googleError(injected.status ?? 500, 'UNAVAILABLE', 'The service is currently unavailable.');
      return {
        ...googleError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded'),
        headers: { 'retry-after': String(injected.retryAfterSeconds ?? 60) },
      };
    },
  });
  store = createTokenStore(server.clock, 'ya29');

  const post = async (body: unknown, secret: string | null) => {
    if (!fake.subscriber) throw new Error('no subscriber configured');
    const answer = await deliver(fake.subscriber.endpointUri, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(secret === null ? {} : { authorization: secret }) },
      body: JSON.stringify(body),
    });
    deliveries.push(answer);
    return answer;
  };

  fake = Object.assign(server, {
    clientId,
    clientSecret,
    consent,
    grants: store.grants,
    subscriber: null as { endpointUri: string; secret: string } | null,
    deliveries,
    perUserPerMinute: 300,
    healthUserIdOf,
    userOf: (account?: string) => userOf(account ?? consent.account),
    expireAccessTokens: () => store.expireAccessTokens(),
    deletePoint: (dataType: string, atMs: number) => void deleted.add(`${dataType}|${atMs}`),
    async verifyEndpoint() {
      const withSecret = await post({ type: 'verification' }, fake.subscriber?.secret ?? null);
      const withoutSecret = await post({ type: 'verification' }, null);
      return { withSecret: withSecret.status, withoutSecret: withoutSecret.status };
    },
    async notify(
      dataType: string,
      startMs: number,
      endMs: number,
      extra: { operation?: string; secret?: string; account?: string } = {},
    ) {
      return post(
        {
          data: {
            healthUserId: healthUserIdOf(extra.account ?? consent.account),
            operation: extra.operation ?? 'UPSERT',
            dataType,
            intervals: [
              {
                physicalTimeInterval: {
                  startTime: new Date(startMs).toISOString(),
                  endTime: new Date(endMs).toISOString(),
                },
              },
            ],
            clientProvidedSubscriptionName: 'tributary',
            version: randomUUID(),
          },
        },
        extra.secret ?? fake.subscriber?.secret ?? null,
      );
    },
  });
  return fake;
}

export { isoDay };

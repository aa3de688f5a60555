import { createHmac, randomUUID } from 'node:crypto';
import {
  authorizeReply,
  type Consent,
  createTokenStore,
  type Delivery,
  deliver,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
  type Grant,
  pageOf,
  parseDayUuid,
  type Route,
  randomId,
  startFakeServer,
} from './fake-server.ts';
import {
  documentsOf,
  heartRateRows,
  kindCodes,
  type OuraDocumentKind,
  type OuraUser,
  ouraDocumentKinds,
  personalInfo,
} from './oura-data.ts';

/**
 * A faithful local Oura API v2 (docs/providers.md#oura, OpenAPI 1.29): OAuth with credentials
 * in the body and single-use refresh tokens, revocation, every usercollection route used by the
 * normalizers (also under /v2/sandbox/), `next_token` pagination, webhook subscriptions verified
 * by the GET challenge, and signed event delivery. Documents are generated per day from the
 * recorded samples (oura-data.ts). Point `OURA_BASE_URL` at `baseUrl`.
 */
export type OuraEvent = {
  event_type: 'create' | 'update' | 'delete';
  data_type: string;
  object_id: string;
  event_time?: string;
  user_id?: string;
};

export type OuraSubscription = {
  id: string;
  callback_url: string;
  verification_token: string;
  event_type: string;
  data_type: string;
  expiration_time: string;
};

export type OuraFake = FakeServer & {
  clientId: string;
  clientSecret: string;
  consent: Consent;
  /** Documents per page of a collection (Oura does not document its size). */
  pageSize: number;
  /** Rows per page of a time series (heartrate). */
  timeSeriesPageSize: number;
  /** Each account's offset: documents carry it in their LocalizedDateTimes. */
  offsetMinutes: number;
  grants: Grant[];
  subscriptions: Map<string, OuraSubscription>;
  deliveries: Delivery[];
  /** A code for the current consent, as if the user had just approved (no browser needed). */
  issueCode(input: { redirectUri: string; scopes?: string[] }): string;
  /** Every access token expires now; every grant stays refreshable. */
  expireAccessTokens(): void;
  /** Revokes every grant of `account` (default: all), as when the user removes the app. */
  revokeAccount(account?: string): void;
  /** Oura's stable user id for an account. */
  userIdOf(account: string): string;
  /** GET challenge against a callback URL; true when it echoed the challenge. */
  verifyCallback(callbackUrl: string, verificationToken: string): Promise<boolean>;
  /** One signed event POST to `url` (x-oura-signature / x-oura-timestamp). */
  sendWebhook(
    url: string,
    event: OuraEvent,
    options?: { secret?: string; timestamp?: string },
  ): Promise<Delivery>;
  /** Sends `event` to every subscription for its (event_type, data_type); a 410 cancels one. */
  notify(event: OuraEvent): Promise<Delivery[]>;
};

export const OURA_SCOPES = [
  'email',
  'personal',
  'daily',
  'heartrate',
  'workout',
  'tag',
  'session',
  'spo2',
] as const;

/** The scope each collection needs (the spec's `spo2Daily` is the documented `spo2`). */
const scopeOf: Readonly<Record<OuraDocumentKind | 'heartrate', string>> = {
  workout: 'workout',
  session: 'session',
  sleep: 'daily',
  daily_activity: 'daily',
  daily_sleep: 'daily',
  daily_readiness: 'daily',
  daily_stress: 'daily',
  vo2_max: 'daily',
  daily_spo2: 'spo2',
  heartrate: 'heartrate',
  tag: 'tag',
  enhanced_tag: 'tag',
};

const DAY_MS = 86_400_000;
const problem = (status: number, title: string, detail: string): FakeReply => ({
  status,
  body: { status, title, detail },
});

/** `YYYY-MM-DD` or an ISO date-time (its own calendar date) -> day number. */
function dayOf(text: string): number | null {
  const match = /^(\d{4}-\d{2}-\d{2})/.exec(text);
  if (!match) return null;
  const epochMs = Date.parse(`${match[1]}T00:00:00Z`);
  return Number.isNaN(epochMs) ? null : epochMs / DAY_MS;
}

const collectionKind = (segment: string): OuraDocumentKind | null => {
  const kind = segment === 'vO2_max' ? 'vo2_max' : segment;
  return (ouraDocumentKinds as readonly string[]).includes(kind) ? (kind as OuraDocumentKind) : null;
};

export async function startOuraFake(
  options: { pageSize?: number; timeSeriesPageSize?: number; offsetMinutes?: number; now?: number } = {},
): Promise<OuraFake> {
  const clientId = `oura-client-${randomId(4)}`;
  const clientSecret = `oura-secret-${randomId(12)}`;
  const consent: Consent = { account: 'account-1', deny: false, grantScopes: null };
  const subscriptions = new Map<string, OuraSubscription>();
  const deliveries: Delivery[] = [];
  let fake: OuraFake;
  // The store needs the server's clock, which exists once the server does: routes read it lazily.
  let store: ReturnType<typeof createTokenStore>;

  const userOf = (account: string): OuraUser => ({
    seed: `oura|${account}`,
    offsetMinutes: fake.offsetMinutes,
  });
  const userIdOf = (account: string) => `${randomUUIDFor(account)}`;
  const today = () => Math.floor(fake.clock.now() / DAY_MS);

  function authorized(request: FakeRequest, scope: string | null): Grant | FakeReply {
    const result = store.authenticate(request.bearer);
    if ('error' in result) return problem(401, 'Unauthorized', `access token ${result.error}`);
    if (scope && !result.grant.scopes.includes(scope)) {
      return problem(403, 'Forbidden', `token lacks the ${scope} scope`);
    }
    return result.grant;
  }

  /** Oura documents the client credentials in the form body: Basic alone is not enough here. */
  function clientOk(request: FakeRequest): boolean {
    return request.form.get('client_id') === clientId && request.form.get('client_secret') === clientSecret;
  }

  function token(request: FakeRequest): FakeReply {
    if (!clientOk(request)) return { status: 401, body: { error: 'invalid_client' } };
    const grantType = request.form.get('grant_type');
    let grant: Grant;
    if (grantType === 'authorization_code') {
      const pending = store.takeCode(request.form.get('code') ?? '');
      if (!pending || pending.redirectUri !== request.form.get('redirect_uri')) {
        return {
          status: 400,
          body: { error: 'invalid_grant', error_description: 'Invalid authorization code' },
        };
      }
      grant = store.createGrant(pending.account, pending.scopes, 86_400, true);
    } else if (grantType === 'refresh_token') {
      const found = store.byRefresh(request.form.get('refresh_token') ?? '');
      if (!found || found.retired || found.grant.revoked) {
        // Oura's refresh tokens are single-use (error-handling doc: "Token already used or revoked").
        return {
          status: 400,
          body: { error: 'invalid_grant', error_description: 'Token already used or revoked' },
        };
      }
      grant = found.grant;
      store.renewAccess(grant, 86_400);
      store.rotateRefresh(grant, true);
    } else {
      return { status: 400, body: { error: 'unsupported_grant_type' } };
    }
    return {
      status: 200,
      headers: { 'cache-control': 'no-store' },
      body: {
        access_token: grant.accessToken,
        token_type: 'bearer',
        expires_in: 86_400,
        refresh_token: grant.refreshToken,
      },
    };
  }

  function revoke(request: FakeRequest): FakeReply {
    const value = request.query.get('access_token') ?? request.form.get('access_token') ?? request.bearer;
    const found = store.authenticate(value);
    if ('error' in found && found.error !== 'expired')
      return { status: 400, body: { error: 'invalid_token' } };
    const grant = store.grants.find((candidate) => candidate.accessToken === value);
    if (grant) store.revoke(grant);
    return { status: 200, body: {} };
  }

  function collection(request: FakeRequest): FakeReply {
    const kind = collectionKind(request.params.kind ?? '');
    if (!kind) return problem(404, 'Not Found', `no collection ${request.params.kind}`);
    const grant = authorized(request, scopeOf[kind]);
    if (!('account' in grant)) return grant;
    const end = dayOf(request.query.get('end_date') ?? '') ?? today();
    const start = dayOf(request.query.get('start_date') ?? '') ?? end - 1;
    if (request.query.has('start_date') && dayOf(request.query.get('start_date') ?? '') === null) {
      return problem(400, 'Query Parameter Validation Error', 'start_date must be a date or date-time');
    }
    if (end - start > 3660) return problem(400, 'Query Parameter Validation Error', 'range too long');
    const user = userOf(grant.account);
    const documents = [];
    for (let day = start; day <= Math.min(end, today()); day++)
      documents.push(...documentsOf(kind, user, day));
    const page = pageOf(
      documents,
      fake.pageSize,
      request.query.get('next_token') || null,
      `${kind}|${start}|${end}`,
    );
    if (!page) return problem(400, 'Query Parameter Validation Error', 'invalid next_token');
    return { status: 200, body: { data: page.page, next_token: page.next } };
  }

  function single(request: FakeRequest): FakeReply {
    const kind = collectionKind(request.params.kind ?? '');
    if (!kind) return problem(404, 'Not Found', `no collection ${request.params.kind}`);
    const grant = authorized(request, scopeOf[kind]);
    if (!('account' in grant)) return grant;
    const decoded = parseDayUuid(request.params.id ?? '');
    const document =
      decoded && decoded.kindCode === kindCodes[kind]
        ? documentsOf(kind, userOf(grant.account), decoded.dayNumber).find(
            (candidate) => candidate.id === request.params.id,
          )
        : undefined;
    return document ? { status: 200, body: document } : problem(404, 'Not Found', 'document not found');
  }

  function heartrate(request: FakeRequest): FakeReply {
    const grant = authorized(request, scopeOf.heartrate);
    if (!('account' in grant)) return grant;
    const endText = request.query.get('end_datetime');
    const startText = request.query.get('start_datetime');
    const endMs = endText ? Date.parse(endText) : fake.clock.now();
    const startMs = startText ? Date.parse(startText) : endMs - DAY_MS;
    if (Number.isNaN(startMs) || Number.isNaN(endMs)) {
      // A '+' left unescaped in the offset arrives as a space: Oura rejects the datetime.
      return problem(400, 'Query Parameter Validation Error', 'start_datetime/end_datetime must be ISO 8601');
    }
    if (endMs - startMs > 30 * DAY_MS)
      return problem(400, 'Query Parameter Validation Error', 'range too long');
    const rows = heartRateRows(userOf(grant.account), startMs, Math.min(endMs, fake.clock.now()));
    const page = pageOf(
      rows,
      fake.timeSeriesPageSize,
      request.query.get('next_token') || null,
      `hr|${startMs}|${endMs}`,
    );
    if (!page) return problem(400, 'Query Parameter Validation Error', 'invalid next_token');
    return { status: 200, body: { data: page.page, next_token: page.next } };
  }

  function appAuthorized(request: FakeRequest): boolean {
    return request.headers['x-client-id'] === clientId && request.headers['x-client-secret'] === clientSecret;
  }

  const publicSubscription = ({ verification_token: _token, ...rest }: OuraSubscription) => rest;

  async function subscribe(request: FakeRequest, existing?: OuraSubscription): Promise<FakeReply> {
    if (!appAuthorized(request)) return problem(401, 'Unauthorized', 'invalid client credentials');
    let body: Partial<OuraSubscription>;
    try {
      body = JSON.parse(request.body) as Partial<OuraSubscription>;
    } catch {
      return problem(422, 'Validation Error', 'body must be JSON');
    }
    const next = { ...existing, ...body } as Partial<OuraSubscription>;
    if (!next.callback_url || !next.verification_token || !next.event_type || !next.data_type) {
      return problem(
        422,
        'Validation Error',
        'callback_url, verification_token, event_type and data_type are required',
      );
    }
    if (!(await fake.verifyCallback(next.callback_url, next.verification_token))) {
      return problem(422, 'Validation Error', 'callback_url did not answer the verification challenge');
    }
    const subscription: OuraSubscription = {
      id: existing?.id ?? randomUUID(),
      callback_url: next.callback_url,
      verification_token: next.verification_token,
      event_type: next.event_type,
      data_type: next.data_type,
      expiration_time: new Date(fake.clock.now() + 30 * DAY_MS).toISOString(),
    };
    subscriptions.set(subscription.id, subscription);
    return { status: existing ? 200 : 201, body: publicSubscription(subscription) };
  }

  const routes: Route[] = [
    {
      method: 'GET',
      path: '/oauth/authorize',
      handler: (request) => authorizeReply(request, store, consent, { clientId, scopeSeparator: ' ' }),
    },
    { method: 'POST', path: '/oauth/token', handler: token },
    { method: 'POST', path: '/oauth/revoke', handler: revoke },
    { method: 'GET', path: '/oauth/revoke', handler: revoke },
    {
      method: 'GET',
      path: '/v2/webhook/subscription',
      handler: (request) =>
        appAuthorized(request)
          ? { status: 200, body: [...subscriptions.values()].map(publicSubscription) }
          : problem(401, 'Unauthorized', 'invalid client credentials'),
    },
    { method: 'POST', path: '/v2/webhook/subscription', handler: (request) => subscribe(request) },
    {
      method: 'PUT',
      path: '/v2/webhook/subscription/renew/:id',
      handler: (request) => {
        const subscription = subscriptions.get(request.params.id ?? '');
        if (!appAuthorized(request)) return problem(401, 'Unauthorized', 'invalid client credentials');
        if (!subscription) return problem(404, 'Not Found', 'no such subscription');
        subscription.expiration_time = new Date(fake.clock.now() + 30 * DAY_MS).toISOString();
        return { status: 200, body: publicSubscription(subscription) };
      },
    },
    {
      method: 'PUT',
      path: '/v2/webhook/subscription/:id',
      handler: (request) => {
        const subscription = subscriptions.get(request.params.id ?? '');
        return subscription
          ? subscribe(request, subscription)
          : problem(404, 'Not Found', 'no such subscription');
      },
    },
    {
      method: 'DELETE',
      path: '/v2/webhook/subscription/:id',
      handler: (request) => {
        if (!appAuthorized(request)) return problem(401, 'Unauthorized', 'invalid client credentials');
        return subscriptions.delete(request.params.id ?? '')
          ? { status: 204 }
          : problem(404, 'Not Found', 'no such subscription');
      },
    },
  ];
  for (const prefix of ['/v2/usercollection', '/v2/sandbox/usercollection']) {
    routes.push(
      {
        method: 'GET',
        path: `${prefix}/personal_info`,
        handler: (request) => {
          const grant = authorized(request, null);
          return 'account' in grant
            ? { status: 200, body: personalInfo(userOf(grant.account), userIdOf(grant.account)) }
            : grant;
        },
      },
      { method: 'GET', path: `${prefix}/heartrate`, handler: heartrate },
      { method: 'GET', path: `${prefix}/:kind`, handler: collection },
      { method: 'GET', path: `${prefix}/:kind/:id`, handler: single },
    );
  }

  const server = await startFakeServer({
    routes,
    faultReply(fault) {
      if (fault.kind === 'unauthorized')
        return problem(401, 'Unauthorized', 'access token expired or revoked');
      if (fault.kind === 'server_error')
        return problem(fault.status ?? 500, 'Internal Server Error', 'injected');
      const retryAfter = fault.retryAfterSeconds ?? 30;
      return {
        status: 429,
        headers: {
          'retry-after': String(retryAfter),
          'x-ratelimit-limit': '5000',
          'x-ratelimit-window': '300',
          'x-ratelimit-reset': String(Math.ceil(fake.clock.now() / 1000) + retryAfter),
          'x-ratelimit-tier': 'access_token',
        },
        body: { status: 429, title: 'Too Many Requests', detail: 'Request Rate Limit Exceeded.' },
      };
    },
  });
  store = createTokenStore(server.clock, 'oura');

  fake = Object.assign(server, {
    clientId,
    clientSecret,
    consent,
    pageSize: options.pageSize ?? 10,
    timeSeriesPageSize: options.timeSeriesPageSize ?? 500,
    offsetMinutes: options.offsetMinutes ?? 60,
    grants: store.grants,
    subscriptions,
    deliveries,
    issueCode: ({ redirectUri, scopes }: { redirectUri: string; scopes?: string[] }) =>
      store.issueCode({
        account: consent.account,
        scopes: scopes ?? [...OURA_SCOPES],
        redirectUri,
        clientId,
      }),
    expireAccessTokens: () => store.expireAccessTokens(),
    revokeAccount: (account?: string) => store.revokeAccount(account),
    userIdOf,
    async verifyCallback(callbackUrl: string, verificationToken: string) {
      const challenge = randomId(12);
      const url = new URL(callbackUrl);
      url.searchParams.set('verification_token', verificationToken);
      url.searchParams.set('challenge', challenge);
      try {
        const answer = await deliver(url.toString(), { method: 'GET' });
        deliveries.push(answer);
        return (
          answer.status === 200 &&
          (JSON.parse(answer.responseBody) as { challenge?: unknown }).challenge === challenge
        );
      } catch {
        return false;
      }
    },
    async sendWebhook(url: string, event: OuraEvent, signing: { secret?: string; timestamp?: string } = {}) {
      const body = JSON.stringify({
        event_time: new Date(fake.clock.now()).toISOString(),
        user_id: userIdOf(consent.account),
        ...event,
      });
      const timestamp = signing.timestamp ?? String(Math.floor(fake.clock.now() / 1000));
      const signature = createHmac('sha256', signing.secret ?? clientSecret)
        .update(timestamp + body)
        .digest('hex')
        .toUpperCase();
      const answer = await deliver(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-oura-signature': signature,
          'x-oura-timestamp': timestamp,
        },
        body,
      });
      deliveries.push(answer);
      return answer;
    },
    async notify(event: OuraEvent) {
      const sent: Delivery[] = [];
      for (const subscription of [...subscriptions.values()]) {
        if (subscription.event_type !== event.event_type || subscription.data_type !== event.data_type)
          continue;
        const answer = await fake.sendWebhook(subscription.callback_url, event);
        // Replying 410 cancels the subscription (Oura webhook docs).
        if (answer.status === 410) subscriptions.delete(subscription.id);
        sent.push(answer);
      }
      return sent;
    },
  });
  if (options.now !== undefined) fake.clock.set(options.now);
  return fake;
}

/** Oura user ids look like opaque strings; derive a stable one per account. */
function randomUUIDFor(account: string): string {
  let hash = 0;
  for (let index = 0; index < account.length; index++)
    hash = (Math.imul(hash, 31) + account.charCodeAt(index)) | 0;
  return `oura-user-${(hash >>> 0).toString(16)}`;
}

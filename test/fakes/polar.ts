import { createHmac } from 'node:crypto';
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
import {
  activityOf,
  continuousHeartRateOf,
  exercisesOf,
  isoDay,
  nightOf,
  type PolarUser,
  parseExerciseId,
  physicalInfoOf,
  rechargeOf,
  userOf,
} from './polar-data.ts';
import { buildSmallFit } from '../helpers/small-fit.ts';

/**
 * A faithful local Polar AccessLink v3 (docs/providers.md#polar, its OpenAPI):
 * OAuth with HTTP Basic client authentication and a long-lived access token with no refresh
 * token (`x_user_id` in the answer); POST /v3/users registration after consent (409 when already
 * registered; data routes answer 403 until then) and DELETE /v3/users/{id} deregistration, which
 * revokes the token; exercises (list and by hashed id, `samples`/`zones`/`route` flags, last 30
 * days and only uploads after registration); daily activity (`from`/`to`, at most 28 days, no
 * older than 365 days); sleep, nightly recharge (last 28 days, and by date); continuous heart
 * rate (by date, or `from`/`to`); each exercise's FIT file (GET /v3/exercises/{id}/fit, a
 * small valid FIT file built by test/helpers/small-fit.ts; `fitOf` replaces it); physical info; one webhook per client managed with Basic
 * credentials, PINGed on create/update, events signed with Polar-Webhook-Signature (hex
 * HMAC-SHA256 of the body with `signature_secret_key`). Rate limits (500 + 20×users per 15 min,
 * 5000 + 100×users per 24 h, RateLimit-Usage/-Limit/-Reset headers) are Polar's published
 * figures recalled in providers.md [?]. One server plays flow.polar.com (authorize),
 * polarremote.com (token) and www.polaraccesslink.com (API).
 */
export type PolarEventType =
  | 'EXERCISE'
  | 'SLEEP'
  | 'CONTINUOUS_HEART_RATE'
  | 'SLEEP_WISE_CIRCADIAN_BEDTIME'
  | 'SLEEP_WISE_ALERTNESS'
  | 'ACTIVITY_SUMMARY'
  | 'PHYSICAL_INFORMATION';

export type PolarWebhook = {
  id: string;
  events: PolarEventType[];
  url: string;
  signatureSecretKey: string;
  active: boolean;
};

export type PolarFake = FakeServer & {
  clientId: string;
  clientSecret: string;
  consent: Consent;
  offsetMinutes: number;
  /** Requests per window before 429: `[15 minutes, 24 hours]`; defaults follow the registered users. */
  limits: { shortTerm: number; longTerm: number } | null;
  grants: Grant[];
  /** Registered users: account -> member id and registration time. */
  registrations: Map<string, { memberId: string; at: number }>;
  webhook: PolarWebhook | null;
  deliveries: Delivery[];
  /**
   * Replaces the FIT file served for an exercise (a damaged or huge one), given the one the fake
   * would serve; null serves the usual file.
   */
  fitOf: ((exerciseId: string, usual: Uint8Array) => Uint8Array | null) | null;
  /** The FIT file the fake serves for an exercise (before `fitOf`). */
  exerciseFit(exerciseId: string, startTime: string): Uint8Array;
  issueCode(input: { redirectUri: string }): string;
  userIdOf(account: string): number;
  /** Revokes every grant of `account` (default: all), as when the user removes the app in Flow. */
  revokeAccount(account?: string): void;
  /** One signed POST as Polar sends it (Polar-Webhook-Signature and Polar-Webhook-Event). */
  sendWebhook(
    url: string,
    payload: Record<string, unknown>,
    options?: { secret?: string; event?: string },
  ): Promise<Delivery>;
  /** An event to the client's webhook when it exists, is active and subscribes to it (null otherwise). */
  notify(
    event: PolarEventType,
    input: { account?: string; entityId?: string; date?: string },
  ): Promise<Delivery | null>;
};

export const POLAR_SCOPE = 'accesslink.read_all';
const DAY_MS = 86_400_000;
const TOKEN_TTL = 315_359_999; // "very long": Polar tokens last until the user deregisters.

/** Polar's `error` schema. */
const error = (status: number, errorType: string, message: string, at: number): FakeReply => ({
  status,
  body: { timestamp: new Date(at).toISOString(), status, errorType, message, corrId: randomId(8) },
});

const dayOfText = (text: string | null): number | null => {
  if (!text || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const epochMs = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(epochMs) ? null : epochMs / DAY_MS;
};
const flag = (request: FakeRequest, name: string) => request.query.get(name) === 'true';

export async function startPolarFake(
  /** `signatureSecretKey`: the key the webhook is created with (default: a random one). */
  options: { offsetMinutes?: number; now?: number; signatureSecretKey?: string } = {},
): Promise<PolarFake> {
  const clientId = `polar-client-${randomId(4)}`;
  const clientSecret = `polar-secret-${randomId(12)}`;
  const consent: Consent = { account: 'account-1', deny: false, grantScopes: null };
  const registrations = new Map<string, { memberId: string; at: number }>();
  const deliveries: Delivery[] = [];
  const usage = { window: -1, day: -1, inWindow: 0, inDay: 0 };
  let fake: PolarFake;
  let store: ReturnType<typeof createTokenStore>;

  const userIdOf = (account: string) => {
    let hash = 7;
    for (let index = 0; index < account.length; index++)
      hash = (Math.imul(hash, 31) + account.charCodeAt(index)) >>> 0;
    return 1_000_000 + (hash % 9_000_000);
  };
  const userFor = (account: string): PolarUser => ({
    seed: `polar|${account}`,
    polarUserId: userIdOf(account),
    offsetMinutes: fake.offsetMinutes,
  });
  const now = () => fake.clock.now();
  const today = () => Math.floor((now() + fake.offsetMinutes * 60_000) / DAY_MS);
  const fail = (status: number, type: string, message: string) => error(status, type, message, now());

  function limits() {
    const users = registrations.size;
    return fake.limits ?? { shortTerm: 500 + 20 * users, longTerm: 5000 + 100 * users };
  }
  function rateHeaders(): Record<string, string> {
    const { shortTerm, longTerm } = limits();
    const windowReset = 900 - Math.floor((now() / 1000) % 900);
    const dayReset = 86_400 - Math.floor((now() / 1000) % 86_400);
    return {
      'RateLimit-Usage': `${usage.inWindow}, ${usage.inDay}`,
      'RateLimit-Limit': `${shortTerm}, ${longTerm}`,
      'RateLimit-Reset': `${windowReset}, ${dayReset}`,
    };
  }
  function count(): void {
    const window = Math.floor(now() / 900_000);
    const day = Math.floor(now() / DAY_MS);
    if (window !== usage.window) Object.assign(usage, { window, inWindow: 0 });
    if (day !== usage.day) Object.assign(usage, { day, inDay: 0 });
    usage.inWindow++;
    usage.inDay++;
  }

  /** The grant of a Bearer token whose user has registered (unless `registered` is false). */
  function user(request: FakeRequest, registered = true): Grant | FakeReply {
    const result = store.authenticate(request.bearer);
    if ('error' in result) return fail(401, 'UNAUTHORIZED', `access token ${result.error}`);
    if (registered && !registrations.has(result.grant.account)) {
      return fail(403, 'FORBIDDEN', 'User has not accepted all mandatory consents.');
    }
    return result.grant;
  }

  function clientOk(request: FakeRequest): boolean {
    const credentials = basicCredentials(request.headers);
    return credentials?.id === clientId && credentials.secret === clientSecret;
  }

  function token(request: FakeRequest): FakeReply {
    // Polar takes the client credentials only as HTTP Basic.
    if (!clientOk(request)) return { status: 401, body: { error: 'invalid_client' } };
    if (request.form.get('grant_type') !== 'authorization_code') {
      // There are no refresh tokens at Polar.
      return { status: 400, body: { error: 'unsupported_grant_type' } };
    }
    const code = request.form.get('code') ?? '';
    const found = store.takeCode(code);
    const redirect = request.form.get('redirect_uri');
    if (!found || (redirect !== null && redirect !== found.redirectUri)) {
      return { status: 400, body: { error: 'invalid_grant' } };
    }
    const grant = store.createGrant(found.account, found.scopes, TOKEN_TTL, false);
    return {
      status: 200,
      headers: { 'cache-control': 'no-store' },
      body: {
        access_token: grant.accessToken,
        token_type: 'bearer',
        expires_in: TOKEN_TTL,
        x_user_id: userIdOf(found.account),
      },
    };
  }

  function register(request: FakeRequest): FakeReply {
    const grant = user(request, false);
    if (!('account' in grant)) return grant;
    let memberId: unknown;
    try {
      memberId = (JSON.parse(request.body) as { 'member-id'?: unknown })['member-id'];
    } catch {
      return fail(400, 'BAD_REQUEST', 'body must be JSON {"member-id": "..."}');
    }
    if (typeof memberId !== 'string' || memberId === '')
      return fail(400, 'BAD_REQUEST', 'member-id is required');
    const taken = [...registrations.entries()].some(
      ([account, entry]) => entry.memberId === memberId && account !== grant.account,
    );
    if (registrations.has(grant.account) || taken) {
      return fail(409, 'CONFLICT', 'User already registered to partner or duplicated member-id.');
    }
    registrations.set(grant.account, { memberId, at: now() });
    return { status: 200, body: userOf(userFor(grant.account), memberId, now()) };
  }

  function ownUser(request: FakeRequest): Grant | FakeReply {
    const grant = user(request);
    if (!('account' in grant)) return grant;
    if (String(userIdOf(grant.account)) !== request.params.id) return { status: 204 };
    return grant;
  }

  /** Inclusive day range from `from`/`to`, or the error Polar gives. */
  function range(request: FakeRequest, required: boolean): { from: number; to: number } | FakeReply {
    const fromText = request.query.get('from');
    const toText = request.query.get('to');
    if (required && (!fromText || !toText)) return fail(400, 'BAD_REQUEST', 'from and to are required');
    const to = toText ? dayOfText(toText) : today();
    const from = fromText ? dayOfText(fromText) : (to ?? today()) - 28;
    if (from === null || to === null || from > to) return fail(400, 'BAD_REQUEST', 'Invalid date.');
    if (from < today() - 365)
      return fail(400, 'BAD_REQUEST', 'Invalid or too old date. Cannot be older than 365 days.');
    if (to - from > 28) return fail(400, 'BAD_REQUEST', 'Date range cannot exceed 28 days.');
    return { from, to: Math.min(to, today()) };
  }

  function exercises(request: FakeRequest): FakeReply {
    const grant = user(request);
    if (!('account' in grant)) return grant;
    const registeredDay = Math.floor(
      ((registrations.get(grant.account)?.at ?? 0) + fake.offsetMinutes * 60_000) / DAY_MS,
    );
    const options = {
      samples: flag(request, 'samples'),
      zones: flag(request, 'zones'),
      route: flag(request, 'route'),
    };
    const list = [];
    for (let day = Math.max(today() - 29, registeredDay); day <= today(); day++)
      list.push(...exercisesOf(userFor(grant.account), day, options));
    return { status: 200, body: list };
  }

  function exercise(request: FakeRequest): FakeReply {
    const grant = user(request);
    if (!('account' in grant)) return grant;
    const found = parseExerciseId(userFor(grant.account), request.params.id ?? '');
    const options = {
      samples: flag(request, 'samples'),
      zones: flag(request, 'zones'),
      route: flag(request, 'route'),
    };
    const document =
      found && found.day > today() - 30
        ? exercisesOf(userFor(grant.account), found.day, options)[found.index]
        : undefined;
    return document ? { status: 200, body: document } : fail(404, 'NOT_FOUND', 'Exercise not found.');
  }

  function exerciseFitReply(request: FakeRequest): FakeReply {
    const grant = user(request);
    if (!('account' in grant)) return grant;
    const id = request.params.id ?? '';
    const found = parseExerciseId(userFor(grant.account), id);
    const document =
      found && found.day > today() - 30
        ? exercisesOf(userFor(grant.account), found.day, { samples: false, zones: false, route: false })[
            found.index
          ]
        : undefined;
    if (!document) return fail(404, 'NOT_FOUND', 'Exercise not found.');
    const usual = fake.exerciseFit(id, String(document.start_time));
    return {
      status: 200,
      headers: { 'content-type': 'application/octet-stream' },
      body: fake.fitOf?.(id, usual) ?? usual,
    };
  }

  /** `/v3/users/<kind>` (last 28 days) and `/v3/users/<kind>/{date}`. */
  function byDate(
    make: (user: PolarUser, day: number) => Record<string, unknown>,
    listKey: string,
  ): [Route['handler'], Route['handler']] {
    const list: Route['handler'] = (request) => {
      const grant = user(request);
      if (!('account' in grant)) return grant;
      const items = [];
      for (let day = today() - 27; day <= today(); day++) items.push(make(userFor(grant.account), day));
      return { status: 200, body: { [listKey]: items } };
    };
    const one: Route['handler'] = (request) => {
      const grant = user(request);
      if (!('account' in grant)) return grant;
      const day = dayOfText(request.params.date ?? null);
      if (day === null) return fail(400, 'BAD_REQUEST', 'Invalid date.');
      if (day > today() || day < today() - 27) return fail(404, 'NOT_FOUND', 'No data found for date.');
      return { status: 200, body: make(userFor(grant.account), day) };
    };
    return [list, one];
  }
  const [sleepList, sleepOne] = byDate(nightOf, 'nights');
  const [rechargeList, rechargeOne] = byDate(rechargeOf, 'recharges');

  function activities(request: FakeRequest, single: boolean): FakeReply {
    const grant = user(request);
    if (!('account' in grant)) return grant;
    const options = {
      steps: flag(request, 'steps'),
      zones: flag(request, 'activity_zones'),
      stamps: flag(request, 'inactivity_stamps'),
    };
    if (single) {
      const day = dayOfText(request.params.date ?? null);
      if (day === null || day < today() - 365)
        return fail(400, 'BAD_REQUEST', 'Invalid or too old date. Cannot be older than 365 days.');
      return day > today()
        ? { status: 204 }
        : { status: 200, body: activityOf(userFor(grant.account), day, options) };
    }
    const span = range(request, false);
    if (!('from' in span)) return span;
    const list = [];
    for (let day = span.from; day <= span.to; day++)
      list.push(activityOf(userFor(grant.account), day, options));
    return { status: 200, body: list };
  }

  function continuous(request: FakeRequest, single: boolean): FakeReply {
    const grant = user(request);
    if (!('account' in grant)) return grant;
    if (single) {
      const day = dayOfText(request.params.date ?? null);
      if (day === null) return fail(400, 'BAD_REQUEST', 'Invalid request.');
      if (day > today()) return fail(404, 'NOT_FOUND', 'No data found for date.');
      return { status: 200, body: continuousHeartRateOf(userFor(grant.account), day) };
    }
    const span = range(request, true);
    if (!('from' in span)) return span;
    const heartRates = [];
    for (let day = span.from; day <= span.to; day++)
      heartRates.push(continuousHeartRateOf(userFor(grant.account), day));
    return { status: 200, body: { heart_rates: heartRates } };
  }

  // --- webhooks (client credentials) ---------------------------------------------------------

  async function ping(url: string, secret: string): Promise<boolean> {
    try {
      const delivery = await fake.sendWebhook(
        url,
        { timestamp: new Date(now()).toISOString(), event: 'PING' },
        { secret, event: 'PING' },
      );
      return delivery.status === 200;
    } catch {
      return false;
    }
  }

  async function webhookWrite(request: FakeRequest): Promise<FakeReply> {
    if (!clientOk(request)) return fail(401, 'UNAUTHORIZED', 'client credentials required');
    let body: { events?: unknown; url?: unknown };
    try {
      body = JSON.parse(request.body) as { events?: unknown; url?: unknown };
    } catch {
      return fail(400, 'BAD_REQUEST', 'Webhook cannot be created.');
    }
    const existing = fake.webhook;
    if (request.method === 'POST' && existing) return fail(409, 'CONFLICT', 'Webhook already exists.');
    if (request.method === 'PATCH' && existing?.id !== request.params.id)
      return fail(404, 'NOT_FOUND', 'Webhook not found.');
    const events = (body.events ?? existing?.events) as PolarEventType[] | undefined;
    const url = (body.url ?? existing?.url) as string | undefined;
    if (!Array.isArray(events) || events.length === 0 || typeof url !== 'string') {
      return fail(400, 'BAD_REQUEST', 'events and url are required');
    }
    const secret =
      existing?.signatureSecretKey ??
      options.signatureSecretKey ??
      `${randomId(4)}-${randomId(2)}-${randomId(2)}-${randomId(2)}-${randomId(6)}`;
    if ((request.method === 'POST' || body.url !== undefined) && !(await ping(url, secret))) {
      return fail(400, 'BAD_REQUEST', 'Webhook cannot be created: the PING was not answered with 200.');
    }
    fake.webhook = {
      id: existing?.id ?? randomId(3),
      events,
      url,
      signatureSecretKey: secret,
      active: existing?.active ?? true,
    };
    const data = { id: fake.webhook.id, events, url };
    // The signature key is shown once, in the answer to the creation.
    return request.method === 'POST'
      ? { status: 201, body: { data: { ...data, signature_secret_key: secret } } }
      : { status: 200, body: { data } };
  }

  function webhookState(request: FakeRequest, active: boolean): FakeReply {
    if (!clientOk(request)) return fail(401, 'UNAUTHORIZED', 'client credentials required');
    if (!fake.webhook) return { status: 204 };
    fake.webhook.active = active;
    return { status: 200 };
  }

  const routes: Route[] = [
    {
      method: 'GET',
      path: '/oauth2/authorization',
      handler: (request) => authorizeReply(request, store, consent, { clientId, scopeSeparator: ' ' }),
    },
    { method: 'POST', path: '/v2/oauth2/token', handler: token },
    { method: 'POST', path: '/v3/users', handler: register },
    {
      method: 'GET',
      path: '/v3/users/physical-info',
      handler: (request) => {
        const grant = user(request);
        return 'account' in grant
          ? { status: 200, body: physicalInfoOf(userFor(grant.account), now()) }
          : grant;
      },
    },
    { method: 'GET', path: '/v3/exercises', handler: exercises },
    { method: 'GET', path: '/v3/exercises/:id', handler: exercise },
    { method: 'GET', path: '/v3/exercises/:id/fit', handler: exerciseFitReply },
    { method: 'GET', path: '/v3/users/activities', handler: (request) => activities(request, false) },
    { method: 'GET', path: '/v3/users/activities/:date', handler: (request) => activities(request, true) },
    {
      method: 'GET',
      path: '/v3/users/sleep/available',
      handler: (request) => {
        const grant = user(request);
        if (!('account' in grant)) return grant;
        const available = [];
        for (let day = today() - 27; day <= today(); day++) {
          const night = nightOf(userFor(grant.account), day);
          available.push({
            date: isoDay(day),
            start_time: night.sleep_start_time,
            end_time: night.sleep_end_time,
          });
        }
        return { status: 200, body: { available } };
      },
    },
    { method: 'GET', path: '/v3/users/sleep', handler: sleepList },
    { method: 'GET', path: '/v3/users/sleep/:date', handler: sleepOne },
    { method: 'GET', path: '/v3/users/nightly-recharge', handler: rechargeList },
    { method: 'GET', path: '/v3/users/nightly-recharge/:date', handler: rechargeOne },
    {
      method: 'GET',
      path: '/v3/users/continuous-heart-rate',
      handler: (request) => continuous(request, false),
    },
    {
      method: 'GET',
      path: '/v3/users/continuous-heart-rate/:date',
      handler: (request) => continuous(request, true),
    },
    {
      method: 'GET',
      path: '/v3/users/:id',
      handler: (request) => {
        const grant = ownUser(request);
        if (!('account' in grant)) return grant;
        const registration = registrations.get(grant.account);
        return {
          status: 200,
          body: userOf(userFor(grant.account), registration?.memberId ?? '', registration?.at ?? now()),
        };
      },
    },
    {
      method: 'DELETE',
      path: '/v3/users/:id',
      handler: (request) => {
        const grant = ownUser(request);
        if (!('account' in grant)) return grant;
        registrations.delete(grant.account);
        // Deregistering is how a Polar token is revoked.
        fake.revokeAccount(grant.account);
        return { status: 204 };
      },
    },
    { method: 'POST', path: '/v3/webhooks', handler: webhookWrite },
    { method: 'PATCH', path: '/v3/webhooks/:id', handler: webhookWrite },
    {
      method: 'GET',
      path: '/v3/webhooks',
      handler: (request) => {
        if (!clientOk(request)) return fail(401, 'UNAUTHORIZED', 'client credentials required');
        const hook = fake.webhook;
        return {
          status: 200,
          body: {
            data: hook ? [{ id: hook.id, events: hook.events, url: hook.url, active: hook.active }] : [],
          },
        };
      },
    },
    {
      method: 'DELETE',
      path: '/v3/webhooks/:id',
      handler: (request) => {
        if (!clientOk(request)) return fail(401, 'UNAUTHORIZED', 'client credentials required');
        if (fake.webhook?.id !== request.params.id) return fail(404, 'NOT_FOUND', 'Webhook not found.');
        fake.webhook = null;
        return { status: 204 };
      },
    },
    { method: 'POST', path: '/v3/webhooks/activate', handler: (request) => webhookState(request, true) },
    { method: 'POST', path: '/v3/webhooks/deactivate', handler: (request) => webhookState(request, false) },
  ];

  const counted = (request: FakeRequest) =>
    request.path.startsWith('/v3/') && !request.path.startsWith('/v3/webhooks');
  const server = await startFakeServer({
    routes,
    gate(request) {
      if (!counted(request)) return null;
      count();
      const { shortTerm, longTerm } = limits();
      if (usage.inWindow > shortTerm || usage.inDay > longTerm) {
        return { ...fail(429, 'TOO_MANY_REQUESTS', 'Rate limit exceeded'), headers: rateHeaders() };
      }
      return null;
    },
    everyReply: (request) => (counted(request) ? rateHeaders() : {}),
    faultReply(injected) {
      if (injected.kind === 'unauthorized') return fail(401, 'UNAUTHORIZED', 'Unauthorized');
      if (injected.kind === 'server_error')
        return fail(injected.status ?? 500, 'INTERNAL_SERVER_ERROR', 'Internal server error');
      return {
        ...fail(429, 'TOO_MANY_REQUESTS', 'Rate limit exceeded'),
        headers: { ...rateHeaders(), 'Retry-After': String(injected.retryAfterSeconds ?? 60) },
      };
    },
  });
  if (options.now !== undefined) server.clock.set(options.now);
  store = createTokenStore(server.clock, 'polar');

  fake = Object.assign(server, {
    clientId,
    clientSecret,
    consent,
    offsetMinutes: options.offsetMinutes ?? 120,
    limits: null,
    grants: store.grants,
    registrations,
    webhook: null,
    deliveries,
    fitOf: null,
    exerciseFit: (exerciseId: string, startTime: string) =>
      buildSmallFit({
        // The local start time as written in the exercise, read as UTC: close enough for a fake.
        startMs: Date.parse(`${startTime.slice(0, 19)}Z`),
        seed: [...exerciseId].reduce((sum, char) => sum + char.charCodeAt(0), 0),
      }),
    issueCode: ({ redirectUri }: { redirectUri: string }) =>
      store.issueCode({ account: consent.account, scopes: [POLAR_SCOPE], redirectUri, clientId }),
    userIdOf,
    revokeAccount(account?: string) {
      store.revokeAccount(account);
    },
    async sendWebhook(
      url: string,
      payload: Record<string, unknown>,
      options: { secret?: string; event?: string } = {},
    ) {
      const body = JSON.stringify(payload);
      const secret = options.secret ?? fake.webhook?.signatureSecretKey ?? '';
      const delivery = await deliver(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'Polar-Webhook-Event': options.event ?? String(payload.event ?? ''),
          'Polar-Webhook-Signature': createHmac('sha256', secret).update(body).digest('hex'),
        },
        body,
      });
      deliveries.push(delivery);
      return delivery;
    },
    async notify(event: PolarEventType, input: { account?: string; entityId?: string; date?: string }) {
      const hook = fake.webhook;
      if (!hook?.active || !hook.events.includes(event)) return null;
      const userId = userIdOf(input.account ?? consent.account);
      const base = 'https://www.polaraccesslink.com/v3';
      const target: Record<PolarEventType, string> = {
        EXERCISE: `${base}/exercises/${input.entityId}`,
        SLEEP: `${base}/users/sleep/${input.date}`,
        CONTINUOUS_HEART_RATE: `${base}/users/continuous-heart-rate/${input.date}`,
        SLEEP_WISE_CIRCADIAN_BEDTIME: `${base}/users/sleepwise/circadian-bedtime/date?from=${input.date}&to=${input.date}`,
        SLEEP_WISE_ALERTNESS: `${base}/users/sleepwise/alertness/date?from=${input.date}&to=${input.date}`,
        ACTIVITY_SUMMARY: `${base}/users/activities/${input.date}`,
        PHYSICAL_INFORMATION: `${base}/users/physical-info`,
      };
      const payload: Record<string, unknown> = {
        event,
        user_id: userId,
        ...(input.entityId !== undefined ? { entity_id: input.entityId } : {}),
        ...(input.date !== undefined ? { date: input.date } : {}),
        timestamp: new Date(now()).toISOString().replace('.000Z', 'Z'),
        url: target[event],
      };
      return fake.sendWebhook(hook.url, payload);
    },
  }) as PolarFake;
  return fake;
}

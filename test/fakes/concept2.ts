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
  type Route,
  randomId,
  seeded,
  startFakeServer,
} from './fake-server.ts';

/**
 * A faithful local Concept2 Logbook (providers-3.md §6, log.concept2.com/developers/documentation):
 * OAuth with comma-separated scopes and credentials in the body at /oauth/access_token, access
 * tokens with `expires_in` and refresh tokens rotated on refresh; GET /api/users/me
 * (`{ data }`); GET /api/users/me/results (`from`/`to` local dates inclusive, `page`,
 * `per_page` <= 250, `{ data, meta.pagination }`), by id, and /strokes (`t` tenths of a second,
 * `d` decimetres, `p` tenths of a second per 500 m, `spm`, `hr`); the application's webhook
 * (result-added / -updated / -deleted in a `data` wrapper, unsigned: the URL carries the token).
 * No revocation endpoint. Point `CONCEPT2_BASE_URL` at `baseUrl`.
 */
export type Concept2Fake = FakeServer & {
  clientId: string;
  clientSecret: string;
  consent: Consent;
  /** The zone results are logged in. */
  timezone: string;
  historyDays: number;
  grants: Grant[];
  /** The webhook URL registered with Concept2 (with its secret token). */
  webhookUrl: string | null;
  deliveries: Delivery[];
  expireAccessTokens(): void;
  userIdOf(account: string): number;
  resultIdsOf(account: string): number[];
  notifyResult(
    id: number,
    type?: 'result-added' | 'result-updated' | 'result-deleted',
    url?: string,
  ): Promise<Delivery>;
};

const DAY_MS = 86_400_000;
const ACCESS_TTL = 604_800;
const problem = (status: number, message: string): FakeReply => ({
  status,
  body: { status_code: status, message },
});

/** `YYYY-MM-DD HH:MM:SS` of an instant in `zone` (Concept2's local `date`). */
function localText(epochMs: number, zone: string): string {
  return new Intl.DateTimeFormat('sv-SE', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(epochMs));
}

export async function startConcept2Fake(
  options: { historyDays?: number; timezone?: string } = {},
): Promise<Concept2Fake> {
  const clientId = `c2-${randomId(6)}`;
  const clientSecret = `c2-secret-${randomId(12)}`;
  const consent: Consent = { account: 'account-1', deny: false, grantScopes: null };
  let fake: Concept2Fake;
  let store: ReturnType<typeof createTokenStore>;

  const userIdOf = (account: string) => 100_000 + seeded(`c2|${account}`).int(0, 800_000);

  type Plan = {
    id: number;
    startMs: number;
    tenths: number;
    distance: number;
    strokes: boolean;
    type: string;
    account: string;
  };

  function plansOf(account: string): Plan[] {
    const today = Math.floor(fake.clock.now() / DAY_MS);
    const plans: Plan[] = [];
    for (let day = today - fake.historyDays; day <= today; day++) {
      const random = seeded(`c2|${account}|${day}`);
      if (random.next() < 0.35) continue;
      const startMs = day * DAY_MS + random.int(5 * 60, 20 * 60) * 60_000;
      if (startMs > fake.clock.now()) continue;
      const seconds = random.int(10, 45) * 60;
      plans.push({
        id: day * 10 + 3,
        startMs,
        tenths: seconds * 10,
        distance: Math.round(seconds * random.between(3.6, 4.4)),
        strokes: random.next() < 0.8,
        type: random.pick(['rower', 'rower', 'skierg', 'bike']),
        account,
      });
    }
    return plans;
  }

  function resultOf(plan: Plan) {
    const random = seeded(`c2-result|${plan.id}`);
    const average = random.int(125, 160);
    const half = Math.round(plan.tenths / 2);
    return {
      id: plan.id,
      user_id: userIdOf(plan.account),
      date: localText(plan.startMs, fake.timezone),
      timezone: fake.timezone,
      date_utc: localText(plan.startMs, 'UTC'),
      distance: plan.distance,
      type: plan.type,
      time: plan.tenths,
      time_formatted: `${Math.floor(plan.tenths / 600)}:00.0`,
      workout_type: 'FixedTimeSplits',
      source: 'ErgData iOS',
      weight_class: 'H',
      verified: true,
      ranked: false,
      comments: null,
      privacy: 'private',
      stroke_data: plan.strokes,
      stroke_rate: random.int(20, 30),
      stroke_count: Math.round((plan.tenths / 600) * 24),
      drag_factor: 121,
      calories_total: Math.round(plan.tenths / 40),
      heart_rate: { average, min: 96, max: average + 20, ending: average + 10 },
      rest_distance: 0,
      rest_time: 0,
      workout: {
        splits: [
          {
            type: 'time',
            time: half,
            distance: Math.round(plan.distance / 2),
            calories_total: 0,
            stroke_rate: 24,
            heart_rate: { average },
          },
          {
            type: 'time',
            time: plan.tenths - half,
            distance: plan.distance - Math.round(plan.distance / 2),
            calories_total: 0,
            stroke_rate: 25,
            heart_rate: { average },
          },
        ],
      },
    };
  }

  function strokesOf(plan: Plan) {
    const random = seeded(`c2-strokes|${plan.id}`);
    const strokes = [];
    const per = plan.distance / (plan.tenths / 25);
    for (let t = 0, index = 0; t <= plan.tenths; t += 25, index++) {
      strokes.push({
        t,
        d: Math.round(per * (t / 25) * 10),
        p: random.int(1050, 1300),
        spm: random.int(20, 30),
        hr: index === 0 ? 0 : random.int(110, 172),
      });
    }
    return strokes;
  }

  function authorized(request: FakeRequest, scope: string): Grant | FakeReply {
    const result = store.authenticate(request.bearer);
    if ('error' in result) return problem(401, 'Unauthenticated.');
    if (!result.grant.scopes.includes(scope)) return problem(403, 'Forbidden: missing scope.');
    return result.grant;
  }

  function token(request: FakeRequest): FakeReply {
    const form = request.form;
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret)
      return { status: 401, body: { error: 'invalid_client', message: 'Client authentication failed.' } };
    const grantType = form.get('grant_type');
    let grant: Grant;
    if (grantType === 'authorization_code') {
      const pending = store.takeCode(form.get('code') ?? '');
      if (!pending || form.get('redirect_uri') !== pending.redirectUri)
        return {
          status: 400,
          body: { error: 'invalid_request', message: 'The authorization code is invalid.' },
        };
      grant = store.createGrant(pending.account, pending.scopes, ACCESS_TTL, true);
    } else if (grantType === 'refresh_token') {
      const found = store.byRefresh(form.get('refresh_token') ?? '');
      if (!found || found.retired || found.grant.revoked)
        return { status: 400, body: { error: 'invalid_request', message: 'The refresh token is invalid.' } };
      grant = found.grant;
      store.renewAccess(grant, ACCESS_TTL);
      store.rotateRefresh(grant, true);
    } else {
      return { status: 400, body: { error: 'unsupported_grant_type' } };
    }
    return {
      status: 200,
      body: {
        access_token: grant.accessToken,
        token_type: 'Bearer',
        expires_in: ACCESS_TTL,
        refresh_token: grant.refreshToken,
        scope: grant.scopes.join(','),
      },
    };
  }

  const planFor = (request: FakeRequest, grant: Grant) =>
    plansOf(grant.account).find((plan) => plan.id === Number(request.params.id)) ?? null;

  const routes: Route[] = [
    {
      method: 'GET',
      path: '/oauth/authorize',
      handler: (request) => authorizeReply(request, store, consent, { clientId, scopeSeparator: ',' }),
    },
    { method: 'POST', path: '/oauth/access_token', handler: token },
    {
      method: 'GET',
      path: '/api/users/me',
      handler: (request) => {
        const grant = authorized(request, 'user:read');
        if (!('account' in grant)) return grant;
        return {
          status: 200,
          body: {
            data: {
              id: userIdOf(grant.account),
              username: grant.account,
              first_name: 'Erg',
              last_name: 'Rower',
              gender: 'F',
              dob: '1985-04-12',
              email: `${grant.account}@example.com`,
              country: 'GBR',
              profile_image: null,
              age_restricted: false,
              email_permission: false,
              max_heart_rate: 188,
              weight: 6800,
              logbook_privacy: 'private',
            },
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/api/users/me/results',
      handler: (request) => {
        const grant = authorized(request, 'results:read');
        if (!('account' in grant)) return grant;
        const from = request.query.get('from');
        const to = request.query.get('to');
        const page = Number(request.query.get('page') ?? '1');
        const perPage = Number(request.query.get('per_page') ?? '50');
        if (!Number.isInteger(page) || page < 1 || !Number.isInteger(perPage) || perPage < 1 || perPage > 250)
          return problem(422, 'The given data was invalid.');
        const all = plansOf(grant.account)
          .map(resultOf)
          .filter(
            (result) =>
              (!from || result.date.slice(0, 10) >= from) && (!to || result.date.slice(0, 10) <= to),
          )
          .reverse();
        const slice = all.slice((page - 1) * perPage, page * perPage);
        const totalPages = Math.max(1, Math.ceil(all.length / perPage));
        return {
          status: 200,
          body: {
            data: slice,
            meta: {
              pagination: {
                total: all.length,
                count: slice.length,
                per_page: perPage,
                current_page: page,
                total_pages: totalPages,
                links:
                  page < totalPages
                    ? { next: `https://log.concept2.com/api/users/me/results?page=${page + 1}` }
                    : [],
              },
            },
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/api/users/me/results/:id',
      handler: (request) => {
        const grant = authorized(request, 'results:read');
        if (!('account' in grant)) return grant;
        const plan = planFor(request, grant);
        return plan ? { status: 200, body: { data: resultOf(plan) } } : problem(404, 'Result not found.');
      },
    },
    {
      method: 'GET',
      path: '/api/users/me/results/:id/strokes',
      handler: (request) => {
        const grant = authorized(request, 'results:read');
        if (!('account' in grant)) return grant;
        const plan = planFor(request, grant);
        if (!plan || !plan.strokes) return problem(404, 'Stroke data not found.');
        return { status: 200, body: { data: strokesOf(plan) } };
      },
    },
  ];

  const server = await startFakeServer({
    routes,
    faultReply(injected) {
      if (injected.kind === 'unauthorized') return problem(401, 'Unauthenticated.');
      if (injected.kind === 'server_error') return problem(injected.status ?? 500, 'Server Error');
      return {
        ...problem(429, 'Too Many Attempts.'),
        headers: { 'retry-after': String(injected.retryAfterSeconds ?? 1) },
      };
    },
  });
  store = createTokenStore(server.clock, 'concept2');

  fake = Object.assign(server, {
    clientId,
    clientSecret,
    consent,
    timezone: options.timezone ?? 'America/Chicago',
    historyDays: options.historyDays ?? 400,
    grants: store.grants,
    webhookUrl: null as string | null,
    deliveries: [] as Delivery[],
    expireAccessTokens: () => store.expireAccessTokens(),
    userIdOf,
    resultIdsOf: (account: string) => plansOf(account).map((plan) => plan.id),
    async notifyResult(
      id: number,
      type: 'result-added' | 'result-updated' | 'result-deleted' = 'result-updated',
      url?: string,
    ) {
      const target = url ?? fake.webhookUrl;
      if (!target) throw new Error('no webhook URL registered');
      const plan = plansOf(consent.account).find((item) => item.id === id);
      if (!plan) throw new Error(`no result ${id}`);
      const data =
        type === 'result-deleted'
          ? { type, result_id: id, user_id: userIdOf(consent.account) }
          : { type, result: resultOf(plan) };
      const answer = await deliver(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ data }),
      });
      fake.deliveries.push(answer);
      return answer;
    },
  });
  return fake;
}

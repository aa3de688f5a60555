import { createHash, randomUUID } from 'node:crypto';
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
  startFakeServer,
} from './fake-server.ts';
import {
  activitiesOf,
  activityDetailsOf,
  bodyCompsOf,
  DAY_SECONDS,
  dailyOf,
  epochsOf,
  type GarminUser,
  hrvOf,
  mctOf,
  pulseOxOf,
  respirationOf,
  sleepOf,
  stressOf,
  uploadOf,
  userMetricsOf,
} from './garmin-data.ts';
import { courseRoutes, type GarminCourse } from './garmin-courses.ts';
import { seedWorkout, type TrainingAccount, trainingRoutes } from './garmin-training.ts';

/**
 * A faithful local Garmin Connect Developer Program (Health API + Activity API). Garmin's own
 * reference goes to approved partners only; its rules here come from copies of the partner
 * documents that public repositories carry ("Health API" 1.2.x, cited below as HAPI §n) and
 * from public integrations' reports (providers-3.md §2, docs/providers.md#garmin): OAuth 2.0
 * with PKCE (S256 required; credentials in the body; rotating refresh tokens), the partner
 * gateway's user id and registration (DELETE revokes), summaries served only to a ping's
 * callback URL (its upload window and pull token), backfill requests by summary time that Garmin
 * answers later with pings or pushes, user permissions, and unsigned ping / push /
 * deregistration / permission-change notifications carrying the `garmin-client-id` header;
 * Women's Health cycle tracking (`mct`) as a summary type, and the Training API
 * (garmin-training.ts). Point `GARMIN_BASE_URL` at `baseUrl`.
 *
 * What it refuses, as Garmin does (error bodies `{"errorMessage": …}`, HAPI Appendix E):
 * - a summary request without a valid bearer token: 401 (HAPI Appendix E);
 * - a summary request without the pull token of a ping for that summary type and upload window:
 *   400 `InvalidPullTokenException` (HAPI §4.2 and §6.3.6: the token travels in the callback URL;
 *   the 400 and its message as public integrations report them, e.g. watt-mind/coach pull 268);
 * - an upload window over 24 h, or timestamps in milliseconds: 400 (HAPI §7 "maximum query range
 *   of 24 hours by upload time"; Appendix E's example);
 * - a summary type the user does not share: 412 (HAPI Appendix E); a deregistered user: 403;
 * - a summary type not enabled for the partner's consumer key (`partnerDisabled`): 403 on its
 *   pull and backfill paths. The Endpoint Configuration section of the Health and Activity API
 *   documents says data of a type not Enabled "will not be made available"; the status it is
 *   refused with is not documented (403 chosen, docs/providers.md#garmin);
 * - a backfill range over 90 days (HAPI §8), over 30 days for activities (Activity API's backfill
 *   section, as public integrations quote it), before the 5 years kept, or asked twice: 400 / 409.
 */
export type GarminKind =
  | 'dailies'
  | 'epochs'
  | 'stressDetails'
  | 'pulseox'
  | 'sleeps'
  | 'hrv'
  | 'allDayRespiration'
  | 'bodyComps'
  | 'userMetrics'
  | 'activities'
  | 'activityDetails'
  | 'manuallyUpdatedActivities'
  | 'mct';

const PATHS: Readonly<Record<GarminKind, string>> = {
  dailies: 'dailies',
  epochs: 'epochs',
  stressDetails: 'stressDetails',
  pulseox: 'pulseox',
  sleeps: 'sleeps',
  hrv: 'hrv',
  allDayRespiration: 'respiration',
  bodyComps: 'bodyComps',
  userMetrics: 'userMetrics',
  activities: 'activities',
  activityDetails: 'activityDetails',
  manuallyUpdatedActivities: 'manuallyUpdatedActivities',
  mct: 'mct',
};
const KIND_OF_PATH = new Map(Object.entries(PATHS).map(([kind, path]) => [path, kind as GarminKind]));
/** HAPI §8 names the pulse ox backfill `backfill/pulseOx`. */
const KIND_OF_BACKFILL_PATH = new Map([...KIND_OF_PATH, ['pulseOx', 'pulseox' as GarminKind]]);
KIND_OF_BACKFILL_PATH.delete('pulseox');
KIND_OF_BACKFILL_PATH.delete('manuallyUpdatedActivities');
const ACTIVITY_KINDS: ReadonlySet<GarminKind> = new Set([
  'activities',
  'activityDetails',
  'manuallyUpdatedActivities',
]);

type Upload = { kind: GarminKind; days: number[]; at: number; extra: number; manual: boolean };
/** A ping's pull token: good for its summary type and upload window (HAPI §4.2). */
type PullToken = { account: string; kind: GarminKind; start: number; end: number; expires: number };
export type DeliveryMode = 'ping' | 'push';
type Account = {
  user: GarminUser;
  registered: boolean;
  permissions: Set<string>;
  uploads: Upload[];
  /** Training API: workouts and schedules this partner app made for the user. */
  training: TrainingAccount;
  /** Courses API: courses this partner app imported for the user (garmin-courses.ts). */
  courses: Map<number, GarminCourse>;
};

export type GarminFake = FakeServer & {
  clientId: string;
  clientSecret: string;
  consent: Consent;
  grants: Grant[];
  /** The endpoint URL configured in Garmin's developer portal (ping/push target). */
  endpointUrl: string | null;
  deliveries: Delivery[];
  backfills: { kind: string; start: number; end: number }[];
  historyDays: number;
  /** Summary types not enabled for this partner's consumer key (Endpoint Configuration). */
  partnerDisabled: Set<GarminKind>;
  /** Per summary type, Ping (the default) or Push, as set in Garmin's endpoint configuration (HAPI §3). */
  modes: Partial<Record<GarminKind, DeliveryMode>>;
  /** Every callback URL a ping carried, oldest first. */
  callbacks: string[];
  /** Every summary request the fake refused, with its reason (a strict test expects none of its own). */
  refusals: { path: string; status: number; message: string }[];
  /** Notifies an upload the configured way: a ping with a callback URL, or a push with the data. */
  notify(kind: GarminKind, window: { start: number; end: number }, account?: string): Promise<Delivery>;
  userIdOf(account: string): string;
  accountOf(account?: string): Account;
  expireAccessTokens(): void;
  /** A ping for `kind` naming the upload window [start, end] (the last minute by default). */
  ping(
    kind: GarminKind | 'deregistrations' | 'userPermissionsChange',
    window?: { start: number; end: number },
    account?: string,
  ): Promise<Delivery>;
  /** A push: the summaries of `day` uploaded now, carried in the body. */
  push(kind: GarminKind, day: number, account?: string): Promise<Delivery>;
  /** The user records a workout now and syncs: uploads and pings activities + details. */
  syncWorkout(account?: string): Promise<Delivery[]>;
  /** The user edits yesterday's workout in Garmin Connect (a manually updated activity). */
  editWorkout(day: number, account?: string): Promise<Delivery>;
  /**
   * Holds every summary pull (a ping's callback) unanswered until `release`: the service's data
   * refetches stay running, and those behind them queued, for as long as a test needs.
   */
  holdPulls(): PullHold;
  /** The user unticks / ticks data sharing; Garmin sends userPermissionsChange. */
  setPermissions(permissions: string[], account?: string): Promise<Delivery>;
  /** The user disconnects the app in Garmin Connect; Garmin sends deregistrations. */
  deregister(account?: string): Promise<Delivery>;
  send(body: unknown, headers?: Record<string, string>): Promise<Delivery>;
};

export type PullHold = {
  /** Pulls waiting for the release now. */
  waiting(): number;
  release(): void;
};

const ACCESS_TTL = 86_400;
/** HAPI §4: pings are guaranteed for 7 days; their callbacks work that long. */
const PULL_TOKEN_TTL = 7 * DAY_SECONDS;
/** HAPI §8: at most 90 days per backfill request; the Activity API allows 30 for activities. */
const maxBackfillSeconds = (kind: GarminKind) => (ACTIVITY_KINDS.has(kind) ? 30 : 90) * DAY_SECONDS;
const MAX_HISTORY_SECONDS = 5 * 365 * DAY_SECONDS;
const apiError = (status: number, message: string): FakeReply => ({
  status,
  body: { errorMessage: message },
});
const oauthError = (status: number, error: string, description: string): FakeReply => ({
  status,
  body: { error, error_description: description },
});

export async function startGarminFake(
  options: {
    offsetMinutes?: number;
    historyDays?: number;
    /** `real`: summaries at the sample density of a real watch (garmin-data.ts REAL_VOLUME). */
    volume?: 'light' | 'real';
  } = {},
): Promise<GarminFake> {
  const clientId = randomUUID();
  const clientSecret = `garmin-secret-${randomId(16)}`;
  const consent: Consent = { account: 'account-1', deny: false, grantScopes: null };
  const deliveries: Delivery[] = [];
  const accounts = new Map<string, Account>();
  const challenges = new Map<string, { challenge: string; method: string }>();
  const backfills: { account: string; kind: string; start: number; end: number }[] = [];
  const pullTokens = new Map<string, PullToken>();
  const refusals: { path: string; status: number; message: string }[] = [];
  const refuse = (request: FakeRequest, status: number, message: string): FakeReply => {
    refusals.push({ path: request.path, status, message });
    return apiError(status, message);
  };
  let fake: GarminFake;
  let store: ReturnType<typeof createTokenStore>;
  let server: Awaited<ReturnType<typeof startFakeServer>>;
  let trainingIds = 9_000_000;
  const nextTrainingId = () => ++trainingIds;

  const userIdOf = (account: string) => {
    const hash = createHash('sha256').update(`garmin|${account}`).digest('hex');
    return `${hash.slice(0, 8)}-${hash.slice(8, 12)}-4${hash.slice(13, 16)}-a${hash.slice(17, 20)}-${hash.slice(20, 32)}`;
  };
  const accountOf = (account = consent.account): Account => {
    let found = accounts.get(account);
    if (!found) {
      found = {
        user: {
          seed: `garmin|${account}`,
          userId: userIdOf(account),
          offsetMinutes: options.offsetMinutes ?? 60,
          volume: options.volume ?? 'light',
        },
        registered: true,
        permissions: new Set(['ACTIVITY_EXPORT', 'HEALTH_EXPORT', 'WORKOUT_IMPORT', 'COURSE_IMPORT']),
        uploads: [],
        training: { workouts: new Map(), schedules: [] },
        courses: new Map(),
      };
      // Weekly workouts this app scheduled over the last twelve weeks (read back as planned workouts).
      const firstDay = Math.floor(server.clock.now() / 1000 / DAY_SECONDS);
      for (let day = firstDay - 84; day <= firstDay; day += 7) {
        const date = new Date(day * DAY_SECONDS * 1000).toISOString().slice(0, 10);
        const workout = seedWorkout(nextTrainingId(), date);
        found.training.workouts.set(workout.workoutId, workout);
        found.training.schedules.push({ scheduleId: nextTrainingId(), workoutId: workout.workoutId, date });
      }
      accounts.set(account, found);
    }
    return found;
  };
  const nowSeconds = () => Math.floor(fake.clock.now() / 1000);
  const today = () => Math.floor((nowSeconds() + accountOf().user.offsetMinutes * 60) / DAY_SECONDS);

  function summariesOf(kind: GarminKind, user: GarminUser, day: number, upload?: Upload): unknown[] {
    const extra = upload?.extra ?? 0;
    switch (kind) {
      case 'dailies':
        return [dailyOf(user, day)];
      case 'epochs':
        return epochsOf(user, day);
      case 'stressDetails':
        return [stressOf(user, day)];
      case 'pulseox':
        return [pulseOxOf(user, day)];
      case 'sleeps':
        return [sleepOf(user, day)];
      case 'hrv':
        return [hrvOf(user, day)];
      case 'allDayRespiration':
        return [respirationOf(user, day)];
      case 'bodyComps':
        return bodyCompsOf(user, day);
      case 'userMetrics':
        return day % 7 === 0 ? [userMetricsOf(user, day)] : [];
      case 'activities':
        return activitiesOf(user, day, extra);
      case 'activityDetails':
        return activitiesOf(user, day, extra).map((activity) => activityDetailsOf(activity, user));
      case 'mct':
        return [mctOf(user, day)];
      case 'manuallyUpdatedActivities':
        return upload?.manual
          ? activitiesOf(user, day).map((activity) => ({
              ...activity,
              activityName: 'Renamed in Connect',
              activityType: 'TRAIL_RUNNING',
            }))
          : [];
    }
  }

  function authorized(request: FakeRequest): { grant: Grant; account: Account } | FakeReply {
    const result = store.authenticate(request.bearer);
    if ('error' in result) return apiError(401, 'Unauthorized: invalid or expired token');
    return { grant: result.grant, account: accountOf(result.grant.account) };
  }

  const seconds = (text: string | null) => (text !== null && /^\d+$/.test(text) ? Number(text) : null);

  let pullHold: { waiting: number; released: Promise<void> } | null = null;

  async function heldPull(request: FakeRequest): Promise<FakeReply> {
    const hold = pullHold;
    if (hold) {
      hold.waiting++;
      await hold.released;
      hold.waiting--;
    }
    return pull(request);
  }

  function pull(request: FakeRequest): FakeReply {
    const auth = authorized(request);
    if (!('account' in auth)) return auth;
    const kind = KIND_OF_PATH.get(request.params.path ?? '');
    if (!kind) return apiError(404, 'Not Found');
    if (fake.partnerDisabled.has(kind))
      return refuse(request, 403, `summary type ${kind} is not enabled for this consumer key`);
    const { account } = auth;
    if (!account.registered) return refuse(request, 403, 'User is not registered with this application');
    const needed = ACTIVITY_KINDS.has(kind) ? 'ACTIVITY_EXPORT' : 'HEALTH_EXPORT';
    if (!account.permissions.has(needed)) return refuse(request, 412, `The user has not granted ${needed}`);
    const start = seconds(request.query.get('uploadStartTimeInSeconds'));
    const end = seconds(request.query.get('uploadEndTimeInSeconds'));
    if (start === null || end === null) return refuse(request, 400, 'Missing time range parameters');
    if (end > 1e11)
      return refuse(
        request,
        400,
        `timestamp '${end}' appears to be in milliseconds. Please provide unix timestamps in seconds.`,
      );
    if (end < start || end - start > DAY_SECONDS)
      return refuse(request, 400, 'the upload time range must not exceed 86400 seconds');
    const token = pullTokens.get(request.query.get('token') ?? '');
    if (
      !token ||
      token.expires < nowSeconds() ||
      token.account !== auth.grant.account ||
      token.kind !== kind ||
      token.start !== start ||
      token.end !== end
    )
      return refuse(request, 400, 'InvalidPullTokenException failure');
    return { status: 200, body: uploadedIn(kind, account, start, end) };
  }

  /** The summaries of `kind` uploaded in [start, end), each with its user id (as pushes carry it). */
  function uploadedIn(kind: GarminKind, account: Account, start: number, end: number): unknown[] {
    const now = nowSeconds();
    const oldest = today() - fake.historyDays;
    const out: unknown[] = [];
    // The morning syncs within the window.
    for (let day = Math.floor(start / DAY_SECONDS) - 2; day <= Math.floor(end / DAY_SECONDS); day++) {
      const at = uploadOf(day);
      if (at >= start && at < end && at <= now && day >= oldest)
        out.push(...summariesOf(kind, account.user, day));
    }
    // Backfills, syncs and edits uploaded in the window.
    for (const upload of account.uploads) {
      if (upload.kind !== kind || upload.at < start || upload.at >= end) continue;
      for (const day of upload.days) out.push(...summariesOf(kind, account.user, day, upload));
    }
    return out.map((item) => ({ userId: account.user.userId, ...(item as object) }));
  }

  function upload(account: Account, kinds: readonly GarminKind[], days: number[], extra = 0, manual = false) {
    const at = nowSeconds();
    for (const kind of kinds) account.uploads.push({ kind, days, at, extra, manual });
    return { start: at - 60, end: at + 1 };
  }

  function backfill(request: FakeRequest): FakeReply {
    const auth = authorized(request);
    if (!('account' in auth)) return auth;
    const kind = KIND_OF_BACKFILL_PATH.get(request.params.path ?? '');
    if (!kind) return apiError(404, 'Not Found');
    if (fake.partnerDisabled.has(kind))
      return refuse(request, 403, `summary type ${kind} is not enabled for this consumer key`);
    const { account } = auth;
    if (!account.registered) return refuse(request, 403, 'User is not registered with this application');
    const needed = ACTIVITY_KINDS.has(kind) ? 'ACTIVITY_EXPORT' : 'HEALTH_EXPORT';
    if (!account.permissions.has(needed)) return refuse(request, 412, `The user has not granted ${needed}`);
    const start = seconds(request.query.get('summaryStartTimeInSeconds'));
    const end = seconds(request.query.get('summaryEndTimeInSeconds'));
    if (start === null || end === null)
      return refuse(request, 400, 'summaryStartTimeInSeconds and summaryEndTimeInSeconds are required');
    if (end <= start || end - start > maxBackfillSeconds(kind))
      return refuse(
        request,
        400,
        `a ${kind} backfill covers at most ${maxBackfillSeconds(kind) / DAY_SECONDS} days`,
      );
    if (start < nowSeconds() - MAX_HISTORY_SECONDS)
      return refuse(request, 400, 'backfill is limited to the last 5 years');
    const name = auth.grant.account;
    if (
      backfills.some(
        (entry) =>
          entry.account === name && entry.kind === kind && entry.start === start && entry.end === end,
      )
    )
      return apiError(409, 'Duplicate backfill request');
    backfills.push({ account: name, kind, start, end });
    const days: number[] = [];
    const oldest = today() - fake.historyDays;
    for (let day = Math.floor(start / DAY_SECONDS); day * DAY_SECONDS < end; day++)
      if (day >= oldest && day < today()) days.push(day);
    const window = upload(account, [kind], days);
    // Garmin re-sends the summaries through the configured notifications, a little later (HAPI §8).
    if (fake.endpointUrl) setImmediate(() => void fake.notify(kind, window, name).catch(() => undefined));
    return { status: 202 };
  }

  function token(request: FakeRequest): FakeReply {
    const form = request.form;
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret)
      return oauthError(401, 'invalid_client', 'Client authentication failed');
    if (form.get('grant_type') === 'authorization_code') {
      const code = form.get('code') ?? '';
      const pkce = challenges.get(code);
      challenges.delete(code);
      const pending = store.takeCode(code);
      if (!pending || pending.redirectUri !== form.get('redirect_uri') || !pkce)
        return oauthError(400, 'invalid_grant', 'The authorization code is invalid or expired');
      const verifier = form.get('code_verifier') ?? '';
      const computed = createHash('sha256').update(verifier).digest('base64url');
      if (computed !== pkce.challenge) return oauthError(400, 'invalid_grant', 'PKCE verification failed');
      return tokenReply(store.createGrant(pending.account, pending.scopes, ACCESS_TTL, true));
    }
    if (form.get('grant_type') === 'refresh_token') {
      const found = store.byRefresh(form.get('refresh_token') ?? '');
      if (!found || found.retired || found.grant.revoked)
        return oauthError(400, 'invalid_grant', 'The refresh token is invalid or was already used');
      store.renewAccess(found.grant, ACCESS_TTL);
      store.rotateRefresh(found.grant, true);
      return tokenReply(found.grant);
    }
    return oauthError(
      400,
      'unsupported_grant_type',
      'grant_type must be authorization_code or refresh_token',
    );
  }

  function tokenReply(grant: Grant): FakeReply {
    return {
      status: 200,
      body: {
        access_token: grant.accessToken,
        token_type: 'bearer',
        refresh_token: grant.refreshToken,
        expires_in: ACCESS_TTL,
        refresh_token_expires_in: 7_775_999,
        scope: [...accountOf(grant.account).permissions].join(' '),
        jti: randomUUID(),
      },
    };
  }

  const routes: Route[] = [
    {
      method: 'GET',
      path: '/oauth2Confirm',
      handler: (request) => {
        const challenge = request.query.get('code_challenge');
        if (!challenge || request.query.get('code_challenge_method') !== 'S256')
          return { status: 400, body: 'PKCE with S256 is required' };
        const reply = authorizeReply(request, store, consent, { clientId, scopeSeparator: ' ' });
        const location = reply.headers?.location;
        const code = location ? new URL(location).searchParams.get('code') : null;
        if (code) challenges.set(code, { challenge, method: 'S256' });
        return reply;
      },
    },
    { method: 'POST', path: '/di-oauth2-service/oauth/token', handler: token },
    {
      method: 'GET',
      path: '/partner-gateway/rest/user/id',
      handler: (request) => {
        const auth = authorized(request);
        return 'account' in auth ? { status: 200, body: { userId: auth.account.user.userId } } : auth;
      },
    },
    {
      method: 'DELETE',
      path: '/partner-gateway/rest/user/registration',
      handler: (request) => {
        const auth = authorized(request);
        if (!('account' in auth)) return auth;
        auth.account.registered = false;
        for (const grant of store.grants) if (grant.account === auth.grant.account) store.revoke(grant);
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      path: '/wellness-api/rest/user/permissions',
      handler: (request) => {
        const auth = authorized(request);
        if (!('account' in auth)) return auth;
        if (!auth.account.registered) return apiError(403, 'User is not registered with this application');
        return { status: 200, body: [...auth.account.permissions] };
      },
    },
    ...trainingRoutes(authorized, nextTrainingId),
    ...courseRoutes(authorized, nextTrainingId),
    { method: 'GET', path: '/wellness-api/rest/backfill/:path', handler: backfill },
    { method: 'GET', path: '/wellness-api/rest/:path', handler: heldPull },
  ];

  server = await startFakeServer({
    routes,
    faultReply(injected) {
      if (injected.kind === 'unauthorized') return apiError(401, 'Unauthorized');
      if (injected.kind === 'server_error') return apiError(injected.status ?? 500, 'Internal Server Error');
      return {
        ...apiError(429, 'Rate limit exceeded'),
        headers: { 'retry-after': String(injected.retryAfterSeconds ?? 60) },
      };
    },
  });
  store = createTokenStore(server.clock, 'garmin');

  const send = async (body: unknown, headers: Record<string, string> = { 'garmin-client-id': clientId }) => {
    if (!fake.endpointUrl) throw new Error('no endpoint configured in the Garmin portal');
    const answer = await deliver(fake.endpointUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
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
    endpointUrl: null as string | null,
    deliveries,
    backfills,
    historyDays: options.historyDays ?? 365,
    partnerDisabled: new Set<GarminKind>(),
    modes: {},
    refusals,
    callbacks: [] as string[],
    userIdOf,
    accountOf,
    expireAccessTokens: () => store.expireAccessTokens(),
    send,
    async ping(
      kind: GarminKind | 'deregistrations' | 'userPermissionsChange',
      window?: { start: number; end: number },
      account = consent.account,
    ) {
      const userId = accountOf(account).user.userId;
      if (kind === 'deregistrations') return send({ deregistrations: [{ userId }] });
      if (kind === 'userPermissionsChange')
        return send({
          userPermissionsChange: [
            {
              userId,
              summaryId: randomId(6),
              permissions: [...accountOf(account).permissions],
              changeTimeInSeconds: nowSeconds(),
            },
          ],
        });
      const span = window ?? { start: nowSeconds() - 60, end: nowSeconds() };
      // HAPI §4.2: the item is the user id and a pre-formed callback URL carrying the pull token.
      const token = `CPT${randomId(24)}`;
      pullTokens.set(token, { account, kind, ...span, expires: nowSeconds() + PULL_TOKEN_TTL });
      const query = `uploadStartTimeInSeconds=${span.start}&uploadEndTimeInSeconds=${span.end}&token=${token}`;
      const callbackURL = `${fake.baseUrl}/wellness-api/rest/${PATHS[kind]}?${query}`;
      fake.callbacks.push(callbackURL);
      return send({ [kind]: [{ userId, callbackURL }] });
    },
    async notify(kind: GarminKind, window: { start: number; end: number }, account = consent.account) {
      if ((fake.modes[kind] ?? 'ping') === 'ping') return fake.ping(kind, window, account);
      // HAPI §5: a push carries what the callback would have returned, each item with its userId.
      return send({ [kind]: uploadedIn(kind, accountOf(account), window.start, window.end) });
    },
    async push(kind: GarminKind, day: number, account = consent.account) {
      const found = accountOf(account);
      upload(found, [kind], [day]);
      const at = nowSeconds();
      return send({ [kind]: uploadedIn(kind, found, at - 60, at + 1) });
    },
    async syncWorkout(account = consent.account) {
      const found = accountOf(account);
      const window = upload(found, ['activities', 'activityDetails'], [today()], 1);
      return [
        await fake.notify('activities', window, account),
        await fake.notify('activityDetails', window, account),
      ];
    },
    async editWorkout(day: number, account = consent.account) {
      const window = upload(accountOf(account), ['manuallyUpdatedActivities'], [day], 0, true);
      return fake.notify('manuallyUpdatedActivities', window, account);
    },
    holdPulls() {
      let release = () => {};
      const hold = { waiting: 0, released: new Promise<void>((resolve) => (release = resolve)) };
      pullHold = hold;
      return {
        waiting: () => hold.waiting,
        release() {
          if (pullHold === hold) pullHold = null;
          release();
        },
      };
    },
    async setPermissions(permissions: string[], account = consent.account) {
      accountOf(account).permissions = new Set(permissions);
      return fake.ping('userPermissionsChange', undefined, account);
    },
    async deregister(account = consent.account) {
      accountOf(account).registered = false;
      return fake.ping('deregistrations', undefined, account);
    },
  });
  return fake;
}

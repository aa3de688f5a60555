import { createHmac } from 'node:crypto';
import { addDays, dayNumberToIsoDate, MS_PER_DAY } from '../../src/model/time.ts';
import {
  authorizeReply,
  type Consent,
  createTokenStore,
  deliver,
  type Delivery,
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
 * A local Huawei Health Kit cloud, written from Huawei's public pages (docs/providers.md#huawei-health-kit):
 *
 * - OAuth through HUAWEI ID (Account Kit): `GET /oauth2/v3/authorize` (space-separated scopes,
 *   `access_type=offline` for a refresh token); `POST /oauth2/v3/token` with client_id and
 *   client_secret in the form; access tokens 3600 s, the refresh token kept across refreshes
 *   (about 180 days); with `openid` the answer has an `id_token` whose `openid` claim is the
 *   user's OpenID for the app and `sub` the UnionID.
 * - Health Kit REST (`/healthkit/v2`, Authorization: Bearer): `sampleSet:dailyPolymerize` (days
 *   `yyyyMMdd`, both inclusive, `timeZone` `+hhmm`, at most 31 days [C]); `sampleSet:polymerize`
 *   (ms, endTime required, startTime from 2014-01-01, at most 30 days; at most 20 types);
 *   `healthRecords` (ns, dataType required, at most 31 days); `activityRecords` (ms, at most 31
 *   days); both lists paged with `cursor` [C]; `DELETE consents/{appId}` withdraws the app's scopes.
 *   Sample point times are nanoseconds.
 * - Notifications: POST `{openId, eventType, eventTime, subscriptionId, metaData}` signed in
 *   `x-notification-signature` = Base64(HMAC-SHA256(Base64-decoded subscriber secret,
 *   `openId_eventType_eventTime`)).
 *
 * Edge cases served: activities at 00:30 in +08:00 (the previous UTC day) and without a summary
 * or heart rate; days with no data at all and days whose statistics are 0 placeholders; weights
 * without bmi and with a 0 body-fat placeholder; sleep records without `timeZone`; lists longer
 * than a page. The user lives in +08:00: steps are taken hour by hour of their waking day, and
 * dailyPolymerize sums them over the days of the zone it is asked for (`timeZone`), so a day
 * cut in UTC holds another total than the user's own day. Sleep health records are keyed by
 * `healthRecordId`, the name Huawei's SDKs give the record id (HealthRecord.getHealthRecordId()).
 */
export type HuaweiFake = FakeServer & {
  clientId: string;
  clientSecret: string;
  consent: Consent;
  grants: Grant[];
  /** Where notifications go; the subscriber secret (Base64) they are signed with. */
  webhookUrl: string | null;
  subscriberSecret: string;
  openIdOf(account: string): string;
  /** The steps the user took on local `date` at `offsetMinutes` east of UTC (what dailyPolymerize sums). */
  stepsOn(account: string, date: string, offsetMinutes: number): number;
  /** Posts one signed event (`secret` overrides the subscriber secret, for forgeries). */
  notify(event: Record<string, unknown>, secret?: string): Promise<Delivery>;
  expireAccessTokens(): void;
};

const ACCESS_TTL = 3600;
const RECORD_PAGE = 5;
const EARLIEST_MS = Date.UTC(2014, 0, 1);
const THIRTY_DAYS_MS = 30 * MS_PER_DAY;
const THIRTY_ONE_DAYS_MS = 31 * MS_PER_DAY;
/** The user's zone: activities and nights are recorded in +08:00. */
const USER_OFFSET_MS = 8 * 3_600_000;
const NS = 1_000_000n;

export async function startHuaweiFake(options: { subscriberSecret?: string } = {}): Promise<HuaweiFake> {
  const clientId = String(100_000_000 + Math.floor(Math.random() * 899_999_999));
  const clientSecret = randomId(32);
  const subscriberSecret = options.subscriberSecret ?? Buffer.from(randomId(24)).toString('base64');
  const consent: Consent = { account: 'account-1', deny: false, grantScopes: null };
  let fake: HuaweiFake;
  let store: ReturnType<typeof createTokenStore>;

  const openIdOf = (account: string) => `MDFAM${Buffer.from(`open|${account}`).toString('base64url')}`;
  const unionIdOf = (account: string) => `MDFAU${Buffer.from(`union|${account}`).toString('base64url')}`;
  const oauthError = (status: number, code: number, description: string): FakeReply => ({
    status,
    body: { error: code, sub_error: code, error_description: description },
  });
  const apiError = (status: number, code: string, message: string): FakeReply => ({
    status,
    body: { error: { code, message } },
  });

  function authorized(request: FakeRequest): Grant | FakeReply {
    const result = store.authenticate(request.bearer);
    return 'error' in result ? apiError(401, '1001', `access token ${result.error}`) : result.grant;
  }

  const jwtPart = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  function tokenReply(grant: Grant, withIdToken: boolean): FakeReply {
    const now = Math.floor(fake.clock.now() / 1000);
    const idToken = [
      jwtPart({ kid: 'fake', typ: 'JWT', alg: 'RS256' }),
      jwtPart({
        iss: 'https://accounts.huawei.com',
        sub: unionIdOf(grant.account),
        aud: clientId,
        azp: clientId,
        openid: openIdOf(grant.account),
        iat: now,
        exp: now + ACCESS_TTL,
      }),
      randomId(16),
    ].join('.');
    return {
      status: 200,
      body: {
        access_token: grant.accessToken,
        token_type: 'Bearer',
        expires_in: ACCESS_TTL,
        ...(grant.refreshToken ? { refresh_token: grant.refreshToken } : {}),
        scope: grant.scopes.join(' '),
        ...(withIdToken && grant.scopes.includes('openid') ? { id_token: idToken } : {}),
      },
    };
  }

  const offline = new Set<string>();
  function token(request: FakeRequest): FakeReply {
    const form = request.form;
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret)
      return oauthError(401, 1101, 'invalid client');
    if (form.get('grant_type') === 'authorization_code') {
      const code = form.get('code') ?? '';
      const wantsRefresh = offline.has(code);
      const pending = store.takeCode(code);
      if (!pending || pending.redirectUri !== form.get('redirect_uri'))
        return oauthError(400, 1101, 'invalid code');
      return tokenReply(store.createGrant(pending.account, pending.scopes, ACCESS_TTL, wantsRefresh), true);
    }
    if (form.get('grant_type') === 'refresh_token') {
      const found = store.byRefresh(form.get('refresh_token') ?? '');
      if (!found || found.retired || found.grant.revoked)
        return oauthError(400, 1101, 'invalid refresh_token');
      // The refresh token stays valid: only a new access token is issued.
      store.renewAccess(found.grant, ACCESS_TTL);
      return tokenReply(found.grant, false);
    }
    return oauthError(400, 1102, 'unsupported grant_type');
  }

  function authorize(request: FakeRequest): FakeReply {
    const reply = authorizeReply(request, store, consent, { clientId, scopeSeparator: ' ' });
    // A refresh token only for `access_type=offline` (Account Kit).
    const location = reply.headers?.location;
    const code = location ? new URL(location).searchParams.get('code') : null;
    if (code && request.query.get('access_type') === 'offline') offline.add(code);
    return reply;
  }

  // --- data -------------------------------------------------------------------------------

  /** The user's local day (+08:00) an instant falls on. */
  const localDate = (ms: number) => dayNumberToIsoDate(Math.floor((ms + USER_OFFSET_MS) / MS_PER_DAY));
  const localMs = (date: string, hour: number) =>
    Date.parse(`${date}T00:00:00Z`) - USER_OFFSET_MS + hour * 3_600_000;

  function activitiesOn(account: string, date: string) {
    const random = seeded(`huawei-activity|${account}|${date}`);
    if (Date.parse(date) % (2 * MS_PER_DAY) !== 0) return [];
    const earlyMorning = random.next() < 0.3;
    const start = localMs(date, earlyMorning ? 0.5 : random.int(6, 19));
    const minutes = random.int(25, 90);
    const withSummary = random.next() > 0.2;
    const withHeartRate = random.next() > 0.3;
    const steps = random.int(2_000, 12_000);
    return [
      {
        id: `${date}-${account}-run`,
        name: random.next() > 0.5 ? 'Morning run' : undefined,
        startTime: start,
        endTime: start + minutes * 60_000,
        activeTime: (minutes - random.int(0, 5)) * 60_000,
        activityType: random.int(1, 100),
        timeZone: '+0800',
        ...(withSummary
          ? {
              activitySummary: {
                dataSummary: [
                  {
                    dataTypeName: 'com.huawei.continuous.steps.total',
                    value: [{ fieldName: 'steps', integerValue: steps }],
                  },
                  {
                    dataTypeName: 'com.huawei.continuous.distance.total',
                    value: [{ fieldName: 'distance', floatValue: steps * 0.8 }],
                  },
                  {
                    dataTypeName: 'com.huawei.continuous.calories.burnt.total',
                    value: [{ fieldName: 'calories_total', floatValue: minutes * 9.5 }],
                  },
                  ...(withHeartRate
                    ? [
                        {
                          dataTypeName: 'com.huawei.continuous.exercise_heart_rate.statistics',
                          value: [
                            { fieldName: 'avg', floatValue: random.int(120, 160) },
                            { fieldName: 'max', floatValue: random.int(165, 190) },
                            { fieldName: 'min', floatValue: random.int(80, 110) },
                          ],
                        },
                      ]
                    : []),
                ],
              },
            }
          : {}),
      },
    ];
  }

  function sleepEndingOn(account: string, date: string) {
    const random = seeded(`huawei-sleep|${account}|${date}`);
    if (random.next() < 0.15) return [];
    const fallAsleep = localMs(addDays(date, -1), 23) + random.int(0, 90) * 60_000;
    const wake = localMs(date, 6) + random.int(0, 120) * 60_000;
    const total = Math.round((wake - fallAsleep) / 60_000);
    const deep = Math.round(total * 0.2);
    const rem = Math.round(total * 0.22);
    const awake = random.int(5, 30);
    return [
      {
        healthRecordId: `sleep-${date}-${account}`,
        startTime: String(BigInt(fallAsleep - 20 * 60_000) * NS),
        endTime: String(BigInt(wake) * NS),
        dataTypeName: 'com.huawei.health.record.sleep',
        ...(random.next() > 0.3 ? { timeZone: '+0800' } : {}),
        value: [
          { fieldName: 'fall_asleep_time', longValue: fallAsleep },
          { fieldName: 'wakeup_time', longValue: wake },
          { fieldName: 'all_sleep_time', integerValue: total - awake },
          { fieldName: 'light_sleep_time', integerValue: total - awake - deep - rem },
          { fieldName: 'deep_sleep_time', integerValue: deep },
          { fieldName: 'dream_time', integerValue: rem },
          { fieldName: 'awake_time', integerValue: awake },
          { fieldName: 'wakeup_count', integerValue: random.int(0, 4) },
          ...(random.next() > 0.2 ? [{ fieldName: 'sleep_score', integerValue: random.int(60, 95) }] : []),
        ],
      },
    ];
  }

  /** Steps of one UTC hour (hours since the epoch): only in the user's waking hours, 07-22 at +08:00. */
  function stepsInHour(account: string, hour: number) {
    const localHour = (((hour + USER_OFFSET_MS / 3_600_000) % 24) + 24) % 24;
    if (localHour < 7 || localHour >= 22) return 0;
    return seeded(`huawei-steps|${account}|${hour}`).int(100, 1_200);
  }

  /** Steps of local `date` in a zone `offsetMs` east of UTC: the hours of that day summed. */
  function stepsOn(account: string, date: string, offsetMs: number) {
    const firstHour = (Date.parse(`${date}T00:00:00Z`) - offsetMs) / 3_600_000;
    let steps = 0;
    for (let hour = firstHour; hour < firstHour + 24; hour++) steps += stepsInHour(account, hour);
    return steps;
  }

  /**
   * Day statistics of local `date` in the zone asked for (`offsetMs` east of UTC): none on some
   * days, 0 placeholders on others.
   */
  function dayStatistics(account: string, date: string, offsetMs: number) {
    const random = seeded(`huawei-day|${account}|${date}`);
    const roll = random.next();
    if (roll < 0.1) return null;
    const placeholder = roll < 0.2;
    const steps = placeholder ? 0 : stepsOn(account, date, offsetMs);
    const point = (dataTypeName: string, value: Record<string, unknown>[]) => ({ dataTypeName, value });
    return [
      point('com.huawei.continuous.steps.total', [{ fieldName: 'steps', integerValue: steps }]),
      point('com.huawei.continuous.distance.total', [{ fieldName: 'distance', floatValue: steps * 0.75 }]),
      point('com.huawei.continuous.calories.burnt.total', [
        { fieldName: 'calories_total', floatValue: steps * 0.04 },
      ]),
      ...(placeholder
        ? []
        : [
            point('com.huawei.continuous.heart_rate.statistics', [
              { fieldName: 'avg', floatValue: random.int(60, 80) },
              { fieldName: 'max', floatValue: random.int(120, 170) },
              { fieldName: 'min', floatValue: random.int(45, 58) },
              { fieldName: 'last', floatValue: random.int(55, 75) },
            ]),
            point('com.huawei.continuous.resting_heart_rate.statistics', [
              { fieldName: 'avg', floatValue: random.int(48, 62) },
            ]),
            point('com.huawei.continuous.spo2.statistics', [
              { fieldName: 'saturation_avg', floatValue: random.int(95, 99) },
              { fieldName: 'saturation_max', floatValue: 100 },
              { fieldName: 'saturation_min', floatValue: random.int(90, 95) },
            ]),
          ]),
    ];
  }

  /** Body measurements of a local day: a weigh-in every third day, BP and glucose on others. */
  function bodyPointsOn(account: string, date: string, type: string) {
    const random = seeded(`huawei-body|${account}|${date}|${type}`);
    const day = Math.floor(Date.parse(date) / MS_PER_DAY);
    const at = BigInt(localMs(date, 7) + random.int(0, 60) * 60_000) * NS;
    const point = (value: Record<string, unknown>[]) => ({
      startTime: String(at),
      endTime: String(at),
      dataTypeName: type,
      originalDataCollectorId: `raw:${type}:fake`,
      value,
    });
    if (type === 'com.huawei.instantaneous.body_weight' && day % 3 === 0)
      return [
        point([
          { fieldName: 'body_weight', floatValue: 61 + random.between(-1, 1) },
          ...(random.next() > 0.4 ? [{ fieldName: 'bmi', floatValue: 21.3 }] : []),
          { fieldName: 'body_fat_rate', floatValue: random.next() > 0.5 ? 0 : 22.5 },
        ]),
      ];
    if (type === 'com.huawei.instantaneous.blood_pressure' && day % 3 === 1)
      return [
        point([
          { fieldName: 'systolic_pressure', floatValue: random.int(110, 135) },
          { fieldName: 'diastolic_pressure', floatValue: random.int(70, 88) },
          { fieldName: 'sphygmus', floatValue: random.int(55, 75) },
        ]),
      ];
    if (type === 'com.huawei.instantaneous.blood_glucose' && day % 3 === 2)
      return [
        point([
          { fieldName: 'level', floatValue: 5.2 },
          { fieldName: 'measure_time', integerValue: 1 },
        ]),
      ];
    return [];
  }

  /** Local days whose instants fall in [startMs, endMs]. */
  function localDates(startMs: number, endMs: number) {
    const dates: string[] = [];
    for (
      let date = localDate(startMs);
      date <= localDate(Math.min(endMs, fake.clock.now()));
      date = addDays(date, 1)
    )
      dates.push(date);
    return dates;
  }

  const asNumber = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) ? value : null);
  const jsonOf = (request: FakeRequest): Record<string, unknown> | null => {
    try {
      const parsed = JSON.parse(request.body) as unknown;
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  };

  function dailyPolymerize(request: FakeRequest): FakeReply {
    const grant = authorized(request);
    if (!('account' in grant)) return grant;
    const body = jsonOf(request);
    const day = (value: unknown) =>
      typeof value === 'string' && /^\d{8}$/.test(value)
        ? `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6)}`
        : null;
    const startDay = day(body?.startDay);
    const endDay = day(body?.endDay);
    const zone = typeof body?.timeZone === 'string' ? /^([+-])(\d{2})(\d{2})$/.exec(body.timeZone) : null;
    if (!Array.isArray(body?.dataTypes) || body.dataTypes.length === 0)
      return apiError(400, '12002', 'missing required parameter: dataTypes');
    if (!startDay || !endDay || endDay < startDay)
      return apiError(400, '12003', 'startDay and endDay: yyyyMMdd, start first');
    if (!zone) return apiError(400, '12003', 'timeZone: +hhmm');
    if (Date.parse(endDay) - Date.parse(startDay) >= THIRTY_ONE_DAYS_MS)
      return apiError(400, '12003', 'at most 31 days');
    const offsetMs = (zone[1] === '-' ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3])) * 60_000;
    const group = [];
    for (let date = startDay; date <= endDay; date = addDays(date, 1)) {
      const startMs = Date.parse(`${date}T00:00:00Z`) - offsetMs;
      if (startMs > fake.clock.now()) break;
      const points = dayStatistics(grant.account, date, offsetMs);
      if (!points) continue;
      group.push({
        startTime: startMs,
        endTime: startMs + MS_PER_DAY,
        sampleSet: [
          {
            dataCollectorId: 'derived:statistics:fake',
            samplePoints: points.map((point) => ({
              ...point,
              startTime: String(BigInt(startMs) * NS),
              endTime: String(BigInt(startMs + MS_PER_DAY) * NS),
            })),
          },
        ],
      });
    }
    return { status: 200, body: { group } };
  }

  function polymerize(request: FakeRequest): FakeReply {
    const grant = authorized(request);
    if (!('account' in grant)) return grant;
    const body = jsonOf(request);
    if (!body) return apiError(400, 'SC_BAD_REQUEST', 'Request body must be valid JSON');
    const startTime = asNumber(body.startTime);
    const endTime = asNumber(body.endTime);
    const types = Array.isArray(body.polymerizeWith)
      ? (body.polymerizeWith as { dataTypeName?: unknown }[])
      : null;
    if (endTime === null) return apiError(400, '12002', 'missing required parameter: endTime');
    if (!types || types.length === 0)
      return apiError(400, '12002', 'missing required parameter: polymerizeWith');
    if (types.length > 20) return apiError(400, '12003', 'polymerizeWith: at most 20');
    if (startTime === null || startTime < EARLIEST_MS || endTime <= startTime)
      return apiError(400, '12003', 'startTime from 2014-01-01, before endTime');
    if (endTime - startTime > THIRTY_DAYS_MS) return apiError(400, '12003', 'time interval exceeds 30 days');
    const group = types.map((entry) => {
      const type = String(entry?.dataTypeName);
      const samplePoints = localDates(startTime, endTime)
        .flatMap((date) => bodyPointsOn(grant.account, date, type))
        .filter((point) => {
          const at = Number(BigInt(point.startTime) / NS);
          return at >= startTime && at <= endTime;
        });
      return { startTime, endTime, sampleSet: [{ dataCollectorId: `derived:${type}:fake`, samplePoints }] };
    });
    return { status: 200, body: { group } };
  }

  /** A list served `RECORD_PAGE` at a time, the next page named by an opaque `cursor`. */
  function paged(list: unknown[], key: string, request: FakeRequest): FakeReply {
    const cursor = request.query.get('cursor');
    const from = cursor ? Number(Buffer.from(cursor, 'base64url').toString('utf8')) : 0;
    if (!Number.isInteger(from) || from < 0) return apiError(400, '12003', 'invalid cursor');
    const next = from + RECORD_PAGE;
    return {
      status: 200,
      body: {
        [key]: list.slice(from, next),
        ...(next < list.length ? { cursor: Buffer.from(String(next)).toString('base64url') } : {}),
      },
    };
  }

  function activityRecords(request: FakeRequest): FakeReply {
    const grant = authorized(request);
    if (!('account' in grant)) return grant;
    const startTime = Number(request.query.get('startTime'));
    const endTime = Number(request.query.get('endTime'));
    if (!Number.isInteger(startTime) || !Number.isInteger(endTime) || String(startTime).length !== 13)
      return apiError(400, '12003', 'startTime and endTime: 13-digit milliseconds');
    if (endTime <= startTime || endTime - startTime > THIRTY_ONE_DAYS_MS)
      return apiError(400, '12003', 'endTime after startTime, at most 31 days');
    const records = localDates(startTime - MS_PER_DAY, endTime)
      .flatMap((date) => activitiesOn(grant.account, date))
      .filter((record) => record.startTime >= startTime && record.startTime <= endTime);
    return paged(records, 'activityRecord', request);
  }

  function healthRecords(request: FakeRequest): FakeReply {
    const grant = authorized(request);
    if (!('account' in grant)) return grant;
    const startRaw = request.query.get('startTime') ?? '';
    const endRaw = request.query.get('endTime') ?? '';
    if (request.query.get('dataType') === null)
      return apiError(400, '12002', 'missing required parameter: dataType');
    if (!/^\d{19}$/.test(startRaw) || !/^\d{19}$/.test(endRaw))
      return apiError(400, '12003', 'startTime and endTime: 19-digit nanoseconds');
    const startMs = Number(BigInt(startRaw) / NS);
    const endMs = Number(BigInt(endRaw) / NS);
    if (endMs <= startMs || endMs - startMs > THIRTY_ONE_DAYS_MS)
      return apiError(400, '12003', 'endTime after startTime, at most 31 days');
    if (request.query.get('dataType') !== 'com.huawei.health.record.sleep')
      return paged([], 'healthRecords', request);
    const records = localDates(startMs, endMs + MS_PER_DAY)
      .flatMap((date) => sleepEndingOn(grant.account, date))
      .filter((record) => {
        const end = Number(BigInt(record.endTime) / NS);
        return end >= startMs && end <= endMs && end <= fake.clock.now();
      });
    return paged(records, 'healthRecords', request);
  }

  function cancelConsent(request: FakeRequest): FakeReply {
    const grant = authorized(request);
    if (!('account' in grant)) return grant;
    if (request.params.appId !== clientId) return apiError(403, '1003', 'another app');
    store.revoke(grant);
    return { status: 204 };
  }

  const routes: Route[] = [
    { method: 'GET', path: '/oauth2/v3/authorize', handler: authorize },
    { method: 'POST', path: '/oauth2/v3/token', handler: token },
    { method: 'POST', path: '/healthkit/v2/sampleSet:dailyPolymerize', handler: dailyPolymerize },
    { method: 'POST', path: '/healthkit/v2/sampleSet:polymerize', handler: polymerize },
    { method: 'GET', path: '/healthkit/v2/activityRecords', handler: activityRecords },
    { method: 'GET', path: '/healthkit/v2/healthRecords', handler: healthRecords },
    { method: 'DELETE', path: '/healthkit/v2/consents/:appId', handler: cancelConsent },
  ];

  const server = await startFakeServer({
    routes,
    faultReply(injected) {
      if (injected.kind === 'unauthorized') return apiError(401, '1001', 'access token expired');
      if (injected.kind === 'server_error') return apiError(injected.status ?? 500, '500', 'internal error');
      return {
        ...apiError(429, '1002', 'flow control'),
        headers: { 'retry-after': String(injected.retryAfterSeconds ?? 60) },
      };
    },
  });
  store = createTokenStore(server.clock, 'huawei');

  fake = Object.assign(server, {
    clientId,
    clientSecret,
    consent,
    grants: store.grants,
    webhookUrl: null as string | null,
    subscriberSecret,
    openIdOf,
    stepsOn: (account: string, date: string, offsetMinutes: number) =>
      stepsOn(account, date, offsetMinutes * 60_000),
    async notify(event: Record<string, unknown>, secret = subscriberSecret) {
      if (!fake.webhookUrl) throw new Error('no webhook URL');
      const signature = createHmac('sha256', Buffer.from(secret, 'base64'))
        .update(`${String(event.openId)}_${String(event.eventType)}_${String(event.eventTime)}`, 'utf8')
        .digest('base64');
      return deliver(fake.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=UTF-8', 'x-notification-signature': signature },
        body: JSON.stringify(event),
      });
    },
    expireAccessTokens: () => store.expireAccessTokens(),
  });
  return fake;
}

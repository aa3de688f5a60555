import assert from 'node:assert/strict';
import { type HuaweiFake, startHuaweiFake } from '../fakes/huawei.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';

// Huawei Health Kit end to end against its fake: HUAWEI ID OAuth with `access_type=offline`, the
// OpenID read from the id_token, day statistics (dailyPolymerize), body samples (polymerize),
// sleep health records and activity records paged by cursor, a signed data-change notification
// (HMAC over openId_eventType_eventTime with the Base64 subscriber secret), refreshes (the
// refresh token is kept), 429 and 5xx, and the Health Kit consent cancelled at deauthentication.
// The declaration is off by default, so the test switches it on.
const SUBSCRIBER_SECRET = Buffer.from('huawei-subscriber-secret-for-tests').toString('base64');

runConnectorPath<HuaweiFake>({
  provider: 'HUAWEI',
  startFake: () => startHuaweiFake({ subscriberSecret: SUBSCRIBER_SECRET }),
  env: {
    HUAWEI_ENABLED: 'true',
    HUAWEI_WEBHOOK_SECRET: SUBSCRIBER_SECRET,
    HUAWEI_REQUEST_BUDGET: '100000/1,1000000/3600',
  },
  types: ['activity', 'daily', 'body', 'sleep'],
  apiPrefix: '/healthkit/v2/',
  tokenPath: '/oauth2/v3/token',
  async subscribe(fake, _service, publicUrl) {
    // The backfill followed cursors through lists longer than a page.
    assert.ok(
      fake.requestsTo('/healthkit/v2/activityRecords').some((read) => typeof read.query.cursor === 'string'),
      'a second page of activity records was asked for',
    );
    fake.webhookUrl = `${publicUrl}/providers/HUAWEI/webhook`;
    const event = {
      openId: fake.openIdOf('account-1'),
      eventType: 'ACTIVITY_RECORD_EVENT$UPDATE',
      eventTime: String(Date.now()),
      subscriptionId: 'subscription-1',
      metaData: { startTime: Date.now() - 86_400_000, endTime: Date.now(), timeZone: '+0800' },
    };
    const forged = await fake.notify(event, Buffer.from('guessed').toString('base64'));
    assert.equal(forged.status, 401, 'a notification signed with another secret is refused');
  },
  async notify(fake, stored) {
    assert.ok((await stored('body')).length > 0, 'stored body days');
    const now = Date.now();
    const delivery = await fake.notify({
      openId: fake.openIdOf('account-1'),
      eventType: 'SAMPLE_POINT_EVENT$UPDATE',
      eventTime: String(now),
      subscriptionId: 'subscription-2',
      metaData: { startTime: now - 3_600_000, endTime: now },
    });
    assert.ok(delivery.status < 300, delivery.responseBody);
    return 'body';
  },
  expireTokens: (fake) => fake.expireAccessTokens(),
});

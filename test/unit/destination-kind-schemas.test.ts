// Each kind's settings schema (kinds/*.ts) is what its adapter checks first: a wrong type or an
// unknown setting is refused with the setting named, in the wording the API has always used; and
// the API document's create body has one variant per kind carrying that same schema.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KIND_NAMES, KIND_SETTINGS, kindOf } from '../../src/features/delivery/destination-kinds.ts';
import { CreateDestinationDoc } from '../../src/features/delivery/schemas.ts';
import { checkWebhookSettings } from '../../src/features/delivery/kinds/webhook.ts';

// Sandbox: the address policy lets test hosts through, so only the settings themselves are judged.
const policy = {
  environment: 'sandbox' as const,
  resolve: async () => [{ address: '203.0.113.10', family: 4 }],
  ownDatabases: [],
};

/** A valid settings object per kind other than the webhook. */
const VALID: Record<string, Record<string, unknown>> = {
  postgresql: { url: 'postgres://u:p@db.example.com:5432/analytics' },
  s3: { bucket: 'my-bucket', access_key_id: 'AKIAEXAMPLE', secret_access_key: 'secret' },
  nats: { url: 'nats://u:p@nats.example.com:4222' },
};

/** For each kind: a setting given the wrong type, and the problem that names it. */
const WRONG_TYPE: Record<string, [Record<string, unknown>, RegExp]> = {
  postgresql: [{ url: 42 }, /^invalid settings\.url: expected a non-empty string$/],
  s3: [{ force_path_style: 'yes' }, /^invalid settings\.force_path_style: expected true or false$/],
  nats: [{ subject: ['a'] }, /^invalid settings\.subject: expected a non-empty string$/],
};

describe('destination kind settings schemas', () => {
  for (const name of KIND_NAMES.filter((kind) => kind !== 'webhook')) {
    test(`${name}: a valid settings object passes, defaults filled`, async () => {
      const settings = await kindOf(name).parse(VALID[name], policy);
      assert.equal(typeof settings, 'object');
    });

    test(`${name}: settings as stored pass the check again (a PATCH merges over them)`, async () => {
      const stored = (await kindOf(name).parse(VALID[name], policy)) as Record<string, unknown>;
      assert.deepEqual(await kindOf(name).parse(stored, policy), stored);
    });

    test(`${name}: an unknown setting is refused, named`, async () => {
      await assert.rejects(kindOf(name).parse({ ...VALID[name], colour: 'blue' }, policy), (error: Error) =>
        error.message.startsWith('invalid settings.colour: unknown setting; expected '),
      );
    });

    test(`${name}: a setting of the wrong type is refused, named`, async () => {
      const [changes, problem] = WRONG_TYPE[name]!;
      await assert.rejects(kindOf(name).parse({ ...VALID[name], ...changes }, policy), (error: Error) =>
        problem.test(error.message),
      );
    });

    test(`${name}: a missing required setting is refused as required`, async () => {
      const required = (KIND_SETTINGS.get(name) as { required?: string[] }).required ?? [];
      assert.ok(required.length > 0);
      for (const field of required) {
        const { [field]: _dropped, ...rest } = VALID[name]!;
        await assert.rejects(kindOf(name).parse(rest, policy), (error: Error) =>
          error.message.startsWith(`invalid settings.${field}: required`),
        );
      }
    });
  }

  test('s3: a pattern failure keeps its hint for people', async () => {
    await assert.rejects(kindOf('s3').parse({ ...VALID.s3, bucket: 'No_Such' }, policy), (error: Error) =>
      /^invalid settings\.bucket: expected 3-63 lower-case letters/.test(error.message),
    );
  });

  test('of several bad settings, the first in the order they were always checked is named', async () => {
    await assert.rejects(kindOf('s3').parse({ secret_access_key: 'secret' }, policy), (error: Error) =>
      /^invalid settings\.bucket: required$/.test(error.message),
    );
    await assert.rejects(
      kindOf('nats').parse({ url: 5, stream: 'a b', colour: 'blue' }, policy),
      (error: Error) => error.message.startsWith('invalid settings.colour: unknown setting'),
    );
  });

  test('a null setting counts as absent (stored settings keep null for "not set")', async () => {
    const settings = (await kindOf('s3').parse({ ...VALID.s3, endpoint: null }, policy)) as {
      endpoint: unknown;
    };
    assert.equal(settings.endpoint, null);
  });

  test('webhook: an unknown setting and a wrong type are refused, named', () => {
    assert.throws(
      () => checkWebhookSettings({ url: 'https://example.com/h', secret: 'x' }),
      /invalid settings\.secret: unknown setting; a webhook takes url/,
    );
    assert.throws(
      () => checkWebhookSettings({ url: 7 }),
      /invalid settings\.url: expected a non-empty string/,
    );
    assert.throws(() => checkWebhookSettings([]), /invalid settings: expected an object/);
    assert.deepEqual(checkWebhookSettings({ url: 'https://example.com/h' }), {
      url: 'https://example.com/h',
    });
  });

  test('the documented create body has one variant per kind, with that kind’s settings schema', () => {
    const variants = CreateDestinationDoc.anyOf as unknown as {
      properties: { kind: { const: string }; settings: unknown };
    }[];
    assert.deepEqual(
      variants.map((variant) => variant.properties.kind.const),
      [...KIND_NAMES],
    );
    for (const variant of variants)
      assert.equal(variant.properties.settings, KIND_SETTINGS.get(variant.properties.kind.const));
    assert.equal(new Set(KIND_NAMES).size, KIND_SETTINGS.size);
  });
});

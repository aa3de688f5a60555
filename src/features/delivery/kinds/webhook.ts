// The webhook kind: one signed HTTP POST per attempt (docs/webhooks.md). Unlike the other kinds it
// keeps no client per destination: every webhook shares the engine's sender (sender.ts: keep-alive
// agents, the address policy pinned on each socket, the deadline enforced by destroying the
// request), and the signing keys come from the destination's current and retired secrets as the
// engine's batch last read them. The receiver's answer is classed here, with what the engine needs
// besides the verdict: the status code, its Retry-After and whether the deadline passed.
import Type from 'typebox';
import { invalidParameter } from '../../../core/errors.ts';
import { validateDestinationUrl, type WebhookEnvironment } from '../destination-policy.ts';
import { classifyResponse } from '../retry-policy.ts';
import type { Sender } from '../sender.ts';
import { buildDeliveryHeaders, type SigningKey } from '../signing.ts';
import { type KindConnection, type KindEvent, type KindSettings, settingsChecker } from './kind.ts';

const WebhookUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'The https URL events are POSTed to (the address policy applies)',
  examples: ['https://example.com/hooks/tributary'],
});
const WEBHOOK_SETTINGS_OPTIONS = {
  additionalProperties: false,
  title: 'WebhookSettings',
  description: 'kind webhook: a signed HTTP POST per event',
} as const;

/** The settings of a webhook destination as the API takes them (validation, OpenAPI and packages/client). */
export const WebhookSettingsSchema = Type.Object({ url: WebhookUrl }, WEBHOOK_SETTINGS_OPTIONS);

/** The schema with the URL optional, so that a missing one is answered `settings.url: required`. */
export const checkWebhookSettings = settingsChecker(
  Type.Object({ url: Type.Optional(WebhookUrl) }, WEBHOOK_SETTINGS_OPTIONS),
  { unknownHint: 'a webhook takes url' },
);

/** The webhook's settings as a kind: its URL, under the address policy, is all it has (and its target). */
export const webhookKind: KindSettings<{ url: string }> = {
  kind: 'webhook',
  signed: true,
  async parse(input, policy) {
    const { url } = checkWebhookSettings(input);
    if (typeof url !== 'string') throw invalidParameter('settings.url', 'required');
    const check = await validateDestinationUrl(url, policy.environment, policy.resolve);
    if (!check.allowed) throw invalidParameter('settings.url', check.reason);
    return { url };
  },
  view: (settings) => ({ url: settings.url }),
  target: (settings) => settings.url,
};

export type WebhookTarget = { url: string; environment: WebhookEnvironment; keys: readonly SigningKey[] };

type FormattedBody = { body: string | Uint8Array; headers: Readonly<Record<string, string>> };

export type WebhookSendDeps = {
  sender: Sender;
  /** Tributary's version, for the user-agent. */
  version: string;
  /** The time each attempt is signed at. */
  now: () => Date;
  /**
   * The developer's output format applied to the body (features/output-formats, given by the
   * worker): the bytes to sign and send, and headers that go with them (its content type among
   * them). Absent, the stored JSON is sent.
   */
  format?: (event: KindEvent) => FormattedBody | Promise<FormattedBody>;
};

/** A webhook as a kind's connection: made per attempt (it holds nothing but the target and keys). */
export function webhookConnection(deps: WebhookSendDeps, target: WebhookTarget): KindConnection {
  return {
    // The sender destroys the request at the engine's deadline: the engine need not race it.
    selfTimed: true,
    async send(event) {
      // (Awaited only when the format is being read: most attempts take no extra turn here.)
      const pending = deps.format ? deps.format(event) : null;
      const formatted = pending instanceof Promise ? await pending : pending;
      const body = formatted?.body ?? event.body;
      // Signed over the body as sent; the format's headers (content type) override the JSON ones.
      const headers = buildDeliveryHeaders({
        id: event.id,
        timestamp: Math.floor(deps.now().getTime() / 1000),
        rawBody: body,
        secrets: target.keys,
        version: deps.version,
        reference: event.reference,
        orderingTimestamp: event.createdAt,
      });
      if (formatted) Object.assign(headers, formatted.headers);
      const result = await deps.sender.send(target.url, target.environment, headers, body);
      const outcome = classifyResponse(result.statusCode ?? result.failure ?? 'network_error');
      return {
        outcome,
        error: result.error ?? (outcome === 'delivered' ? null : `HTTP ${result.statusCode}`),
        statusCode: result.statusCode,
        retryAfter: result.retryAfter,
        timedOut: result.failure === 'timeout',
      };
    },
    // The sender's sockets are every webhook's: they close with the engine.
    close: async () => undefined,
  };
}

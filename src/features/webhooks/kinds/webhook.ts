// The webhook kind: one signed HTTP POST per attempt (docs/webhooks.md). Unlike the other kinds it
// keeps no client per destination: every webhook shares the engine's sender (sender.ts: keep-alive
// agents, the address policy pinned on each socket, the deadline enforced by destroying the
// request), and the signing keys come from the destination's current and retired secrets as the
// engine's batch last read them. The receiver's answer is classed here, with what the engine needs
// besides the verdict: the status code, its Retry-After and whether the deadline passed.
import type { WebhookEnvironment } from '../destination-policy.ts';
import { classifyResponse } from '../retry-policy.ts';
import type { Sender } from '../sender.ts';
import { buildDeliveryHeaders, type SigningKey } from '../signing.ts';
import type { KindConnection } from './kind.ts';

export type WebhookTarget = { url: string; environment: WebhookEnvironment; keys: readonly SigningKey[] };

export type WebhookSendDeps = {
  sender: Sender;
  /** Tributary's version, for the user-agent. */
  version: string;
  /** The time each attempt is signed at. */
  now: () => Date;
};

/** A webhook as a kind's connection: made per attempt (it holds nothing but the target and keys). */
export function webhookConnection(deps: WebhookSendDeps, target: WebhookTarget): KindConnection {
  return {
    // The sender destroys the request at the engine's deadline: the engine need not race it.
    selfTimed: true,
    async send(event) {
      const headers = buildDeliveryHeaders({
        id: event.id,
        timestamp: Math.floor(deps.now().getTime() / 1000),
        rawBody: event.body,
        secrets: [...target.keys],
        version: deps.version,
        reference: event.reference,
        orderingTimestamp: event.createdAt,
      });
      const result = await deps.sender.send(target.url, target.environment, headers, event.body);
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

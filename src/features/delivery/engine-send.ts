// The engine's one send path: one attempt (one event, or a batch of one destination's events)
// through the destination's kind, within the engine's deadline, its results as answers. Separate
// from what the answers mean (engine-answers.ts): this part only talks to the kind and enforces
// the deadline, closing a client that overruns it.
import { performance } from 'node:perf_hooks';
import type { DestinationRow } from './destination-repo.ts';
import type { Work } from './engine-work.ts';
import type { KindConnections } from './kind-connections.ts';
import type { KindConnection, KindEvent, KindResult } from './kinds/kind.ts';
import type { DeliverableEvent } from './event-rows.ts';
import type { WebhookSettings } from './settings.ts';

export type Answer = {
  verdict: 'delivered' | 'retry' | 'rejected';
  statusCode: number | null;
  error: string | null;
  retryAfter: string | null;
  durationMs: number;
  timedOut: boolean;
};

/** The signal of a kind that keeps its own deadline (kinds/kind.ts `selfTimed`): never aborted. */
const NEVER_ABORTED = new AbortController().signal;

/** An event as the kinds see it. */
function kindEventOf(event: DeliverableEvent): KindEvent {
  return {
    id: event.event_id,
    developerId: event.developer_id,
    type: event.type,
    userId: event.user_id,
    createdAt: event.created_at,
    reference: event.reference,
    body: event.body,
  };
}

function answerOf(result: KindResult, durationMs: number): Answer {
  return {
    verdict: result.outcome,
    statusCode: result.statusCode ?? null,
    error: result.error,
    retryAfter: result.retryAfter ?? null,
    durationMs,
    timedOut: result.timedOut ?? false,
  };
}

export function createKindSender(deps: { settings: WebhookSettings; connections: KindConnections }) {
  const { settings, connections } = deps;

  /**
   * The one send path: the destination's kind sends the events (one, or a batch when the kind
   * takes batches) and classes each outcome, within the engine's deadline. A kind that does not
   * end its sends by the deadline itself is raced: past it the engine stops waiting and closes the
   * destination's client (its sockets with it: the adapter's own timeouts are not relied on), and
   * the attempt counts as a timeout for every event in it.
   */
  async function send(
    works: readonly Work[],
    destination: DestinationRow,
    connection: KindConnection,
  ): Promise<Answer[]> {
    const started = performance.now();
    // One event through a kind that keeps its own deadline (every webhook attempt): no closure,
    // race or result arrays besides the answer's.
    if (works.length === 1 && connection.selfTimed) {
      const result = await connection.send(kindEventOf(works[0]!.event), NEVER_ABORTED);
      return [answerOf(result, Math.round(performance.now() - started))];
    }
    const exchange = async (signal: AbortSignal): Promise<KindResult[]> => {
      if (works.length === 1) return [await connection.send(kindEventOf(works[0]!.event), signal)];
      if (connection.sendBatch)
        return connection.sendBatch(
          works.map((work) => kindEventOf(work.event)),
          signal,
        );
      return Promise.all(works.map((work) => connection.send(kindEventOf(work.event), signal)));
    };
    let results: KindResult[] | null;
    // (A kind that keeps its own deadline gets a signal that never fires, shared: an
    // AbortController per attempt was garbage at thousands of webhook attempts a second.)
    const deadline = connection.selfTimed ? null : new AbortController();
    if (!deadline) {
      results = await exchange(NEVER_ABORTED);
    } else {
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<null>((resolve) => {
        timer = setTimeout(() => {
          deadline.abort(new Error(`no answer within ${settings.timeoutMs} ms`));
          resolve(null);
        }, settings.timeoutMs);
      });
      results = await Promise.race([exchange(deadline.signal), expired]).finally(() => clearTimeout(timer));
    }
    const durationMs = Math.round(performance.now() - started);
    if (results === null || deadline?.signal.aborted) {
      connections.discard(destination.id, connection);
      const timedOut: Answer = {
        verdict: 'retry',
        statusCode: null,
        error: `ETIMEDOUT: no answer within ${settings.timeoutMs} ms`,
        retryAfter: null,
        durationMs,
        timedOut: true,
      };
      return works.map(() => timedOut);
    }
    if (results.length !== works.length)
      throw new Error(`${destination.kind} answered ${results.length} results for ${works.length} events`);
    return results.map((result) => answerOf(result, durationMs));
  }

  return send;
}

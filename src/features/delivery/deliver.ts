// The delivery worker. pg-boss hands it a batch of jobs (each names event generations to attempt);
// it re-reads the events, sends the current ones with up to `settings.concurrency` requests in
// flight (the next starting as soon as one is answered), and records the outcomes, attempt log,
// destination health and next attempts in batched writes while sending goes on, then tells the
// `afterDelivery` hook who received what. A job that no longer matches its event (delivered
// meanwhile, replayed, dropped) is skipped, so a job run twice after a crash never starts a second
// chain of retries.
//
// Bulkheads: every attempt has a deadline the engine enforces (`settings.timeoutMs`: a kind's
// client is closed when it passes, sockets and all; the webhook sender destroys its request);
// each destination has at most `settings.destinationConcurrency` attempts in flight in the
// process, each developer `settings.developerConcurrency` over all its destinations
// (route-shares.ts), and events for one whose share is taken by attempts older than
// `settings.batchWaitMs` go to the slow lane; a batch waits for an attempt at most that long too,
// after which the attempt finishes outside it (its outcome recorded on its own, a slow-lane job
// left behind in case this process dies first), so a silent destination never holds a batch, or a
// worker, that other destinations' events need.
//
// The engine's parts, one job each: engine-batch.ts reads a batch, engine-destinations.ts its
// destinations and their connections, engine-shares.ts the bulkheads, engine-send.ts sends an
// attempt through a kind, engine-answers.ts decides what its answers mean (retry, hold),
// engine-record.ts writes them, engine-detached.ts keeps the attempts a batch stopped waiting
// for; engine-work.ts has the types they share. This module runs a batch through them.
import type { Job } from 'pg-boss';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import { type DestinationRow, routeKey, WEBHOOK_KIND } from './destination-repo.ts';
import { createAttempts } from './engine-answers.ts';
import { createBatchReader } from './engine-batch.ts';
import { createDestinationSnapshots, DESTINATIONS_FRESH_MS } from './engine-destinations.ts';
import { createDetached } from './engine-detached.ts';
import { createWaveRecorder } from './engine-record.ts';
import { createKindSender } from './engine-send.ts';
import { createShareSlots } from './engine-shares.ts';
import { type InFlight, type Lane, newWave, pendingSize, type Sink, type Work } from './engine-work.ts';
import type { WebhookHooks } from './hooks.ts';
import type { ResolveHost } from './destination-policy.ts';
import { createKindConnections, type KindConnections } from './kind-connections.ts';
import type { DeliveryJob } from './outbox.ts';
import type { OwnDatabase } from './own-database.ts';
import { pruneEvents } from './delivery-moves.ts';
import type { KindConnection } from './kinds/kind.ts';
import type { WebhookSendDeps } from './kinds/webhook.ts';
import type { Sender } from './sender.ts';
import type { WebhookSettings } from './settings.ts';

export type { Lane } from './engine-work.ts';

export type DeliveryEngineDeps = {
  db: Db;
  jobs: JobQueue;
  secretBox: SecretBox;
  clock: Clock;
  log: Logger;
  settings: WebhookSettings;
  sender: Sender;
  version: string;
  hooks: WebhookHooks;
  /** The clients of destinations of other kinds (made here when not given). */
  connections?: KindConnections;
  /** The service's own databases, which a PostgreSQL destination may not be (checked again on connect). */
  ownDatabases?: readonly OwnDatabase[];
  /** DNS for the kinds' clients (tests inject one). */
  resolve?: ResolveHost;
  /** The developer's output format for webhook bodies (kinds/webhook.ts `format`). */
  formatEvent?: WebhookSendDeps['format'];
};

const PRUNE_EVERY_MS = 10 * 60_000;
const PRUNE_BATCH = 5_000;
/**
 * Events at most in one send to a kind that takes batches (kinds/kind.ts `sendBatch`): one
 * transaction or object, sized so it ends well within the deadline.
 */
const KIND_BATCH_MAX = 250;

export function createDeliveryEngine(deps: DeliveryEngineDeps) {
  const { db, clock, settings } = deps;
  /** By route key (destination-repo.ts `routeKey`), as is everything per destination below. */
  const slowUntil = new Map<string, number>();
  const connections =
    deps.connections ??
    createKindConnections({
      secretBox: deps.secretBox,
      log: deps.log,
      connectTimeoutMs: settings.connectTimeoutMs,
      deadlineMs: settings.timeoutMs,
      ownDatabases: deps.ownDatabases ?? [],
      ...(deps.resolve ? { resolve: deps.resolve } : {}),
    });
  const webhookDeps: WebhookSendDeps = {
    sender: deps.sender,
    version: deps.version,
    now: () => clock.now(),
    format: deps.formatEvent,
  };
  const { takeShare, waitedMs, shareSlot } = createShareSlots(settings);
  const record = createWaveRecorder(deps);
  const { detached, recordDetached, waitOrDetach, settled } = createDetached({ ...deps, record });
  const { readDestinations, connectionFor } = createDestinationSnapshots({
    ...deps,
    connections,
    webhookDeps,
  });
  const { attempt, settle } = createAttempts({
    clock,
    settings,
    send: createKindSender({ settings, connections }),
    slowUntil,
    detached,
  });
  const currentWork = createBatchReader({ ...deps, detached });
  let lastPrune = 0;
  /** Batches started in this process: each one's number is its place in the shares' lines. */
  let batchesStarted = 0;

  /**
   * Sends the batch with up to `settings.concurrency` requests in flight, starting the next as
   * soon as one is answered (in the batch's order, but events for a destination whose share is
   * full after the rest), and records outcomes while sending goes on:
   * whatever was answered since the last write goes out as one write once the previous write is
   * done, so writes batch themselves as the receiver speeds up. (Sending in waves instead held
   * every wave for its slowest request.) The batch, and so its jobs, completes only once every
   * write has. A failed write stops new sends and fails the batch, so the queue retries it; what
   * was already recorded is skipped then, its generations having moved on.
   */
  async function deliver(jobs: Job<DeliveryJob>[], lane: Lane): Promise<void> {
    // Started earlier, served first where batches wait for one destination's slots (route-shares.ts).
    const batch = batchesStarted++;
    const work = await currentWork(jobs);
    const events = work.map(({ event }) => event);
    let snapshot = work.length > 0 ? await readDestinations(events) : null;
    const sink: Sink = { wave: newWave(), detached: false };
    /** Attempts in flight, with when each started. */
    const inFlight = new Map<Promise<void>, InFlight>();
    /** Destinations that failed an attempt in this batch: their later events take the slow lane. */
    const failedHere = new Set<string>();
    let slotFreed: (() => void) | null = null;
    let recording: Promise<void> | null = null;
    let failure: unknown = null;

    const startRecording = () => {
      if (recording || failure || !snapshot) return;
      const wave = sink.wave;
      if (wave.outcomes.length === 0 && wave.diverted.length === 0) return;
      sink.wave = newWave();
      recording = record(wave, snapshot.destinations).then(
        () => {
          recording = null;
          if (!failure && pendingSize(sink.wave) >= settings.concurrency) startRecording();
        },
        (error: unknown) => {
          failure = error ?? new Error('recording webhook outcomes failed');
          recording = null;
        },
      );
    };

    /** Waits while the batch has `concurrency` attempts in flight. */
    async function batchSlot() {
      // (A promise per wait rather than Promise.race over everything in flight, which adds a
      // reaction to each of them per wait: 7 % of the CPU in the bench's profile.)
      while (inFlight.size >= settings.concurrency) await new Promise<void>((free) => (slotFreed = free));
    }

    /**
     * For a destination whose share is taken by attempts that get no answer. On the slow lane the
     * event waits for them to end (their deadline) rather than coming straight back.
     */
    function divert(item: Work) {
      sink.wave.diverted.push({ work: item, afterMs: lane === 'main' ? 0 : settings.timeoutMs });
    }

    function start(
      works: readonly Work[],
      destination: DestinationRow,
      connection: KindConnection,
      route: string,
      share: () => void,
    ) {
      const done = () => {
        share();
        inFlight.delete(sending);
        slotFreed?.();
        slotFreed = null;
      };
      const sending: Promise<void> = attempt(sink, works, destination, connection).then(
        (delivered) => {
          done();
          if (!delivered) failedHere.add(route);
          if (sink.detached) recordDetached();
          else if (pendingSize(sink.wave) >= settings.concurrency) startRecording();
        },
        // Kept as a value, like a failed write: an attempt that threw (say, a secret that no
        // longer opens) fails the batch once what is in flight has settled.
        (error: unknown) => {
          done();
          if (sink.detached) {
            for (const { event } of works) detached.events.delete(event.id);
            deps.log.warn({ err: error }, 'a detached webhook attempt failed');
          } else failure ??= error ?? new Error('webhook attempt failed');
        },
      );
      inFlight.set(sending, { startedAt: Date.now(), works });
    }

    /** Events whose destination's share was full, sent after the rest of the batch. */
    const waitingForShare: { item: Work; destination: DestinationRow; route: string }[] = [];
    /**
     * Events for destinations whose kind takes batches, by route: each destination's go as one
     * attempt (KIND_BATCH_MAX events at most) once the loop below has started the rest.
     */
    const batched = new Map<
      string,
      { destination: DestinationRow; connection: KindConnection; works: Work[] }
    >();

    for (const item of work) {
      if (failure || !snapshot) break;
      if (Date.now() - snapshot.readAt > DESTINATIONS_FRESH_MS) snapshot = await readDestinations(events);
      const { event } = item;
      const route = routeKey(event);
      const destination = snapshot.destinations.get(route);
      if (!destination) continue;
      if (item.suppressed) {
        settle(sink.wave, item, 'dropped', item.suppressed);
      } else if (!destination.url) {
        settle(sink.wave, item, 'held', 'no webhook destination configured');
      } else if (destination.status === 'disabled') {
        settle(sink.wave, item, 'held', `${destination.kind} destination disabled`);
      } else if (destination.suspended_at) {
        settle(sink.wave, item, 'held', 'developer account suspended');
      } else if (
        lane === 'main' &&
        (destination.consecutive_failures > 0 ||
          failedHere.has(route) ||
          (slowUntil.get(route) ?? 0) > Date.now())
      ) {
        // A failing or slow receiver would hold this batch (and the healthy receivers in it) for
        // up to the timeout: its events go to the slow lane, whose workers only wait on such receivers.
        sink.wave.diverted.push({ work: item, afterMs: 0 });
      } else if (destination.kind !== WEBHOOK_KIND && connections.get(destination).sendBatch) {
        const group = batched.get(route);
        if (group) group.works.push(item);
        else batched.set(route, { destination, connection: connections.get(destination), works: [item] });
      } else {
        if (inFlight.size >= settings.concurrency) await batchSlot();
        if (failure) break;
        const taken = takeShare(route, event.developer_id);
        if (typeof taken === 'function')
          start([item], destination, connectionFor(destination, snapshot), route, taken);
        else if (waitedMs(taken, route, event.developer_id) >= settings.batchWaitMs) divert(item);
        // A destination (or developer) that is busy but answering: its event goes once the rest
        // of the batch is out, so the batch's other destinations do not wait behind it.
        else waitingForShare.push({ item, destination, route });
      }
    }
    for (const [route, { destination, connection, works }] of batched) {
      for (let from = 0; from < works.length && !failure; from += KIND_BATCH_MAX) {
        const slice = works.slice(from, from + KIND_BATCH_MAX);
        await batchSlot();
        if (failure) break;
        const share = await shareSlot(route, destination.developer_id, batch);
        if (share) start(slice, destination, connection, route, share);
        else for (const item of slice) divert(item);
      }
    }
    for (const { item, destination, route } of waitingForShare) {
      if (failure) break;
      if (inFlight.size >= settings.concurrency) await batchSlot();
      // (Awaited only when it is a wait: no promise when a slot is free or old attempts hold it.)
      const slot = shareSlot(route, item.event.developer_id, batch);
      const share = slot instanceof Promise ? await slot : slot;
      if (share) start([item], destination, connectionFor(destination, snapshot!), route, share);
      else divert(item);
    }
    // (Read through a function: the callbacks above reassign it, which the compiler cannot see.)
    const recordingNow = (): Promise<void> | null => recording;
    await waitOrDetach(sink, inFlight, snapshot);
    for (let write = recordingNow(); write; write = recordingNow()) await write;
    startRecording();
    for (let write = recordingNow(); write; write = recordingNow()) await write;
    if (failure) throw failure;
    maybePrune();
  }

  /** Retention runs in the workers, a bounded slice at a time, at most every ten minutes per process. */
  function maybePrune() {
    const now = Date.now();
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    void prune().catch((error: unknown) => deps.log.warn({ err: error }, 'webhook retention prune failed'));
  }

  async function prune(): Promise<number> {
    const cutoff = new Date(clock.now().getTime() - settings.retentionMs);
    let total = 0;
    for (let round = 0; round < 20; round++) {
      const deleted = await pruneEvents(db, cutoff, PRUNE_BATCH);
      total += deleted;
      if (deleted < PRUNE_BATCH) break;
    }
    return total;
  }

  return {
    deliver,
    prune,
    /**
     * Closes the clients of other kinds' destinations and the webhook sender's sockets (the
     * process is stopping): detached attempts end at once, and their outcomes are written.
     */
    close: async () => {
      deps.sender.close();
      await connections.closeAll();
      await settled();
    },
  };
}

export type DeliveryEngine = ReturnType<typeof createDeliveryEngine>;

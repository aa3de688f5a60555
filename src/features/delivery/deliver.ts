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
import type { Job } from 'pg-boss';
import type { Logger } from 'pino';
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import { performance } from 'node:perf_hooks';
import {
  type DestinationRow,
  findRoutes,
  recordHealth,
  retiredSecretsOf,
  routeKey,
  WEBHOOK_KIND,
} from './destination-repo.ts';
import type { WebhookHooks } from './hooks.ts';
import type { ResolveHost } from './destination-policy.ts';
import { createKindConnections, type KindConnections } from './kind-connections.ts';
import { type DeliveryJob, EVENTS_PER_JOB, firstAttemptJobs, SLOW_DELIVERY_QUEUE } from './outbox.ts';
import type { OwnDatabase } from './own-database.ts';
import {
  type DeliverableEvent,
  type EventOutcome,
  findEventsForDelivery,
  pruneEvents,
  recordOutcomes,
} from './repo.ts';
import type { KindConnection, KindEvent, KindResult } from './kinds/kind.ts';
import { webhookConnection, type WebhookSendDeps } from './kinds/webhook.ts';
import { jitteredDelayMs, parseRetryAfter, scheduledDelayMs } from './retry-policy.ts';
import { createRouteShares } from './route-shares.ts';
import type { Sender } from './sender.ts';
import type { WebhookSettings } from './settings.ts';
import { type SigningKey, signingKey, signingSecretsAt } from './signing.ts';

export type Lane = 'main' | 'slow';

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

/** How long a destination that answered slowly (or timed out) stays on the slow lane in this process. */
const SLOW_LANE_MS = 60_000;
const PRUNE_EVERY_MS = 10 * 60_000;
const PRUNE_BATCH = 5_000;
/**
 * A batch reads its destinations (URL, status, secrets) when it starts and again once this old,
 * so a change made while a long batch is being sent applies to the rest of it.
 */
const DESTINATIONS_FRESH_MS = 1_000;
/** How long after its deadline a detached attempt's outcome may take to be written before its event is sent again. */
const LEASE_MARGIN_MS = 15_000;
/** A destination's `last_success_at` is refreshed at most this often, so healthy traffic does not rewrite its row per batch. */
const SUCCESS_STAMP_MS = 10_000;
/**
 * Events at most in one send to a kind that takes batches (kinds/kind.ts `sendBatch`): one
 * transaction or object, sized so it ends well within the deadline.
 */
const KIND_BATCH_MAX = 250;

/** `suppressed`: why the suppression hook withholds the event now (null: it may go out). */
type Work = { event: DeliverableEvent; generation: number; try: number; suppressed: string | null };

/** What was answered (or settled without a request) since the last write: the next write's content. */
type Wave = {
  outcomes: EventOutcome[];
  retries: Map<string, { data: DeliveryJob; options: { startAfter: number } }>;
  /** Events for the slow lane without an attempt here, each after `afterMs`. */
  diverted: { work: Work; afterMs: number }[];
  /** By destination id. */
  health: Map<string, { successes: number; failures: number }>;
  deliveredUsers: { eventId: string; userId: string; at: Date }[];
};

function newWave(): Wave {
  return { outcomes: [], retries: new Map(), diverted: [], health: new Map(), deliveredUsers: [] };
}

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
  const destinationShares = createRouteShares(settings.destinationConcurrency);
  const developerShares = createRouteShares(settings.developerConcurrency);
  /**
   * Attempts a batch stopped waiting for (see `deliver`): their outcomes are recorded here, one
   * write at a time, with the destinations as their batch last read them.
   */
  const detached = {
    /** The attempts themselves, so closing can wait for them (they end at their deadline at the latest). */
    attempts: new Set<Promise<void>>(),
    /**
     * Event generations whose detached attempt is in flight or not yet written: their lease job,
     * should it come due here first (a slow write), does not send them a second time.
     */
    events: new Map<string, number>(),
    wave: newWave(),
    routes: new Map<string, DestinationRow>(),
    writing: null as Promise<void> | null,
  };
  let lastPrune = 0;

  /** The schedule's wait (scaled for tests), never shorter than the receiver's Retry-After. */
  function nextAttempt(
    failedTry: number,
    now: Date,
    retryAfter: string | null,
  ): { at: Date; delayMs: number } | null {
    const scheduled = scheduledDelayMs(failedTry);
    if (scheduled === null) return null;
    const delayMs = Math.max(
      jitteredDelayMs(scheduled) * settings.retryScale,
      parseRetryAfter(retryAfter, now) ?? 0,
    );
    return { at: new Date(now.getTime() + delayMs), delayMs };
  }

  /**
   * The batch's destinations as last read, each with its signing keys made once (on first use),
   * and each webhook's connection (made once per read, not per attempt).
   */
  type Snapshot = {
    destinations: Map<string, DestinationRow>;
    retired: Map<string, { secret: string; signsUntil: Date }[]>;
    keys: Map<string, SigningKey[]>;
    webhooks: Map<string, KindConnection>;
    readAt: number;
  };

  async function readDestinations(events: readonly DeliverableEvent[]): Promise<Snapshot> {
    // Both at once (the retired secrets are found by developer, so they need not wait for the
    // destinations): one round trip less before a batch's first send on PostgreSQL. Any event may
    // be for a webhook (the primary one, or a secondary one named by its destination id).
    const webhookDevelopers = [...new Set(events.map((event) => event.developer_id))];
    const [destinations, retired] = await Promise.all([
      findRoutes(db, events),
      retiredSecretsOf(db, webhookDevelopers, clock.now()),
    ]);
    return { destinations, retired, keys: new Map(), webhooks: new Map(), readAt: Date.now() };
  }

  function keysFor(snapshot: Snapshot, destination: DestinationRow): SigningKey[] {
    let keys = snapshot.keys.get(destination.id);
    if (!keys) {
      const secrets = signingSecretsAt(
        {
          current: deps.secretBox.open(destination.secret ?? ''),
          retired: (snapshot.retired.get(destination.id) ?? []).map((entry) => ({
            ...entry,
            secret: deps.secretBox.open(entry.secret),
          })),
        },
        clock.now(),
      );
      keys = secrets.map(signingKey);
      snapshot.keys.set(destination.id, keys);
    }
    return keys;
  }

  type Answer = {
    verdict: 'delivered' | 'retry' | 'rejected';
    statusCode: number | null;
    error: string | null;
    retryAfter: string | null;
    durationMs: number;
    timedOut: boolean;
  };

  /**
   * The destination's connection: a webhook's made with the batch's signing keys when its
   * destinations are read (kinds/webhook.ts), any other kind's client kept between batches
   * (kind-connections.ts).
   */
  function connectionFor(destination: DestinationRow, snapshot: Snapshot): KindConnection {
    if (destination.kind !== WEBHOOK_KIND) return connections.get(destination);
    let connection = snapshot.webhooks.get(destination.id);
    if (!connection) {
      connection = webhookConnection(webhookDeps, {
        url: destination.url ?? '',
        environment: destination.environment,
        keys: keysFor(snapshot, destination),
      });
      snapshot.webhooks.set(destination.id, connection);
    }
    return connection;
  }

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
    const deadline = new AbortController();
    const exchange = async (): Promise<KindResult[]> => {
      if (works.length === 1) return [await connection.send(kindEventOf(works[0]!.event), deadline.signal)];
      if (connection.sendBatch)
        return connection.sendBatch(
          works.map((work) => kindEventOf(work.event)),
          deadline.signal,
        );
      return Promise.all(works.map((work) => connection.send(kindEventOf(work.event), deadline.signal)));
    };
    let results: KindResult[] | null;
    if (connection.selfTimed) {
      results = await exchange();
    } else {
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<null>((resolve) => {
        timer = setTimeout(() => {
          deadline.abort(new Error(`no answer within ${settings.timeoutMs} ms`));
          resolve(null);
        }, settings.timeoutMs);
      });
      results = await Promise.race([exchange(), expired]).finally(() => clearTimeout(timer));
    }
    const durationMs = Math.round(performance.now() - started);
    if (results === null || deadline.signal.aborted) {
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
    return results.map((result) => ({
      verdict: result.outcome,
      statusCode: result.statusCode ?? null,
      error: result.error,
      retryAfter: result.retryAfter ?? null,
      durationMs,
      timedOut: result.timedOut ?? false,
    }));
  }

  /**
   * Sends one attempt (of one event, or of a batch of one destination's events); its outcomes go
   * into whichever wave `sink` holds when the answer comes (the engine's own, `detached`, once its
   * batch stopped waiting for it). True when every event was delivered.
   */
  async function attempt(
    sink: Sink,
    works: readonly Work[],
    destination: DestinationRow,
    connection: KindConnection,
  ): Promise<boolean> {
    const route = routeKey(works[0]!.event);
    const attemptedAt = clock.now();
    const answers = await send(works, destination, connection);
    const finishedAt = clock.now();
    const wave = sink.detached ? detached.wave : sink.wave;
    let delivered = 0;
    let slow = false;
    for (let index = 0; index < works.length; index++) {
      const answer = answers[index]!;
      recordAnswer(wave, works[index]!, destination, answer, attemptedAt, finishedAt);
      if (answer.verdict === 'delivered') delivered++;
      if (answer.timedOut || answer.durationMs > settings.slowAfterMs) slow = true;
    }
    const health = wave.health.get(destination.id);
    if (health) {
      health.successes += delivered;
      health.failures += works.length - delivered;
    } else {
      wave.health.set(destination.id, { successes: delivered, failures: works.length - delivered });
    }
    if (slow) {
      slowUntil.set(route, Date.now() + SLOW_LANE_MS);
    } else if (delivered > 0) {
      slowUntil.delete(route);
    }
    return delivered === works.length;
  }

  /** One event's answer as its outcome, attempt log entry, retry and delivered user in `wave`. */
  function recordAnswer(
    wave: Wave,
    work: Work,
    destination: DestinationRow,
    answer: Answer,
    attemptedAt: Date,
    finishedAt: Date,
  ) {
    const { event } = work;
    const { verdict } = answer;
    const next = verdict === 'retry' ? nextAttempt(work.try, finishedAt, answer.retryAfter) : null;
    const status = verdict === 'retry' ? (next ? 'pending' : 'failed') : verdict;
    wave.outcomes.push({
      id: event.id,
      generation: work.generation,
      status,
      nextAttemptAt: next?.at ?? null,
      statusCode: answer.statusCode,
      error: answer.error,
      at: finishedAt,
      attempt: {
        developerId: event.developer_id,
        number: event.attempts + 1,
        url: destination.url ?? '',
        attemptedAt,
        durationMs: answer.durationMs,
        outcome: verdict === 'retry' && !next ? 'failed' : verdict,
      },
    });
    if (next) {
      wave.retries.set(event.id, {
        data: { events: [[event.id, work.generation + 1]], try: work.try + 1 },
        options: { startAfter: next.delayMs / 1000 },
      });
    }
    // `last_webhook_update` and the like are about the webhook.
    if (verdict === 'delivered' && event.user_id && destination.kind === WEBHOOK_KIND)
      wave.deliveredUsers.push({ eventId: event.id, userId: event.user_id, at: finishedAt });
  }

  function settle(wave: Wave, work: Work, status: 'held' | 'dropped', reason: string) {
    wave.outcomes.push({
      id: work.event.id,
      generation: work.generation,
      status,
      nextAttemptAt: null,
      statusCode: null,
      error: reason,
      at: clock.now(),
      attempt: null,
    });
  }

  /**
   * Event generations the batch's jobs ask for that are still current, once each, with what the
   * suppression hook says of the suppressible ones (one call for the whole batch).
   */
  async function currentWork(jobs: Job<DeliveryJob>[]): Promise<Work[]> {
    const wanted = new Map<string, { generation: number; try: number }[]>();
    for (const { data } of jobs) {
      for (const [id, generation] of data.events)
        wanted.set(id, [...(wanted.get(id) ?? []), { generation, try: data.try }]);
    }
    const events = await findEventsForDelivery(db, [...wanted.keys()]);
    const current = events.flatMap((event) => {
      const match =
        event.status === 'pending'
          ? wanted.get(event.id)?.find((w) => w.generation === event.generation)
          : undefined;
      // (Its detached attempt in this process is still going or being written: see `detached`.)
      if (match && detached.events.get(event.id) === match.generation) return [];
      return match ? [{ event, ...match }] : [];
    });
    const candidates = current
      .filter(({ event }) => event.suppressible)
      .map(({ event }) => ({ id: event.id, userId: event.user_id }));
    const withheld =
      candidates.length > 0
        ? await deps.hooks.suppress(db, candidates, 'delivery')
        : new Map<string, string>();
    return current.map((work) => ({ ...work, suppressed: withheld.get(work.event.id) ?? null }));
  }

  /** Records what detached attempts answered, one write at a time (a failed write is logged: the stuck sweeper resends). */
  function recordDetached() {
    if (detached.writing || pendingSize(detached.wave) === 0) return;
    const wave = detached.wave;
    detached.wave = newWave();
    const written = wave.outcomes.map(({ id }) => id);
    detached.writing = record(wave, detached.routes)
      .catch((error: unknown) =>
        deps.log.warn({ err: error }, 'recording the outcomes of detached webhook attempts failed'),
      )
      .finally(() => {
        for (const id of written) detached.events.delete(id);
        detached.writing = null;
        recordDetached();
      });
  }

  /**
   * A slot in the destination's share and in its developer's (route-shares.ts), or, when one of
   * them is full, how long that one's oldest attempt in flight has been waiting (and on what).
   */
  function takeShare(
    route: string,
    developerId: string,
  ): { release: () => void } | { waitedMs: number; wait: (ms: number) => Promise<void> } {
    const destination = destinationShares.take(route);
    if (!destination)
      return {
        waitedMs: destinationShares.oldestMs(route),
        wait: (ms) => destinationShares.waitForSlot(route, ms),
      };
    const developer = developerShares.take(developerId);
    if (!developer) {
      destination();
      return {
        waitedMs: developerShares.oldestMs(developerId),
        wait: (ms) => developerShares.waitForSlot(developerId, ms),
      };
    }
    return {
      release: () => {
        destination();
        developer();
      },
    };
  }

  /**
   * A slot as `takeShare`, waiting for one while the attempts holding the share are younger than
   * `batchWaitMs` (a destination or developer busy but answering gets one as they end); null when
   * they are older (slow or silent: the event goes to the slow lane instead).
   */
  async function shareSlot(route: string, developerId: string): Promise<(() => void) | null> {
    for (;;) {
      const taken = takeShare(route, developerId);
      if ('release' in taken) return taken.release;
      if (taken.waitedMs >= settings.batchWaitMs) return null;
      await taken.wait(settings.batchWaitMs - taken.waitedMs);
    }
  }

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
        await batchSlot();
        if (failure) break;
        const taken = takeShare(route, event.developer_id);
        if ('release' in taken)
          start([item], destination, connectionFor(destination, snapshot), route, taken.release);
        else if (taken.waitedMs >= settings.batchWaitMs) divert(item);
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
        const share = await shareSlot(route, destination.developer_id);
        if (share) start(slice, destination, connection, route, share);
        else for (const item of slice) divert(item);
      }
    }
    for (const { item, destination, route } of waitingForShare) {
      if (failure) break;
      await batchSlot();
      const share = await shareSlot(route, item.event.developer_id);
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

  /**
   * Waits for the batch's attempts in flight, but for none longer than `batchWaitMs` from its
   * start: what is still unanswered then is detached (its outcome goes to `detached`), so the
   * batch's jobs, and the worker, are free for other destinations' events. Each detached event
   * leaves a slow-lane job due after its deadline: should this process die before the outcome is
   * written, that job sends it again (once written, the job is stale and skipped).
   */
  async function waitOrDetach(sink: Sink, inFlight: Map<Promise<void>, InFlight>, snapshot: Snapshot | null) {
    if (inFlight.size === 0) return;
    const youngest = Math.max(...[...inFlight.values()].map(({ startedAt }) => startedAt));
    const patience = youngest + settings.batchWaitMs - Date.now();
    const waiting = new AbortController();
    await Promise.race([
      Promise.all(inFlight.keys()),
      delay(Math.max(0, patience), undefined, { signal: waiting.signal }).catch(() => undefined),
    ]);
    waiting.abort();
    if (inFlight.size === 0) return;
    for (const [route, row] of snapshot?.destinations ?? []) detached.routes.set(route, row);
    sink.detached = true;
    for (const { works } of inFlight.values())
      for (const work of works) detached.events.set(work.event.id, work.generation);
    for (const attempt of inFlight.keys()) {
      detached.attempts.add(attempt);
      void attempt.finally(() => detached.attempts.delete(attempt));
    }
    const leases = [...inFlight.values()].flatMap(({ works }) =>
      works.map((work) => ({ work, afterMs: settings.timeoutMs + LEASE_MARGIN_MS })),
    );
    await deps.jobs.sendMany(SLOW_DELIVERY_QUEUE, divertedJobs(leases));
  }

  function pendingSize(wave: Wave): number {
    return wave.outcomes.length + wave.diverted.length;
  }

  /** Whether this wave changes the destination's health row (healthy traffic mostly does not). */
  function healthChanges(
    destination: DestinationRow | undefined,
    health: { successes: number; failures: number },
    at: Date,
  ) {
    if (!destination || health.successes === 0) return true;
    const stamped = destination.last_success_at?.getTime() ?? 0;
    return (
      destination.consecutive_failures > 0 ||
      destination.status === 'failing' ||
      at.getTime() - stamped > SUCCESS_STAMP_MS
    );
  }

  async function record(wave: Wave, routes: Map<string, DestinationRow>) {
    const at = clock.now();
    const destinations = new Map([...routes.values()].map((row) => [row.id, row]));
    const health = [...wave.health].filter(([destinationId, counts]) =>
      healthChanges(destinations.get(destinationId), counts, at),
    );
    const simple =
      wave.outcomes.every((outcome) => outcome.status !== 'held') &&
      health.length === 0 &&
      wave.retries.size === 0 &&
      wave.diverted.length === 0 &&
      wave.deliveredUsers.length === 0;
    // The common case (everything delivered, nothing else to update) is one statement, no transaction.
    if (simple) {
      await recordOutcomes(db, wave.outcomes);
      return;
    }
    await db.transaction().execute(async (trx) => {
      if (wave.outcomes.some((outcome) => outcome.status === 'held')) {
        // Wait for any change to these destinations in flight (a URL being set, a resume) and see
        // its result: recordOutcomes' next statement then holds only what still has to wait, and
        // whatever a release has already passed over goes out again below.
        await trx
          .selectFrom('webhook_destinations')
          .select('developer_id')
          .where(
            'developer_id',
            'in',
            [...new Set([...destinations.values()].map((row) => row.developer_id))].sort(),
          )
          .orderBy('developer_id')
          .forShare()
          .execute();
      }
      const applied = await recordOutcomes(trx, wave.outcomes);
      const touched = new Map<string, Date>();
      for (const { eventId, userId, at: deliveredAt } of wave.deliveredUsers) {
        const previous = touched.get(userId);
        if (applied.has(eventId) && (!previous || previous < deliveredAt)) touched.set(userId, deliveredAt);
      }
      if (touched.size > 0) await deps.hooks.afterDelivery(trx, touched);
      for (const [destinationId, counts] of health) {
        await recordHealth(trx, destinationId, {
          ...counts,
          at,
          failingAfterMs: settings.failingAfterMs,
          disableAfterMs: settings.disableAfterMs,
        });
      }
      const retries = [...wave.retries].filter(([eventId]) => applied.has(eventId)).map(([, retry]) => retry);
      const diverted = divertedJobs(wave.diverted);
      // Holds the destination no longer warrants (it got a URL meanwhile) go out again instead.
      const unheld = firstAttemptJobs(
        wave.outcomes
          .filter((outcome) => outcome.status === 'held' && !applied.has(outcome.id))
          .map(({ id, generation }) => ({ id, generation })),
      );
      await deps.jobs.sendMany(SLOW_DELIVERY_QUEUE, [...retries, ...diverted, ...unheld], trx);
    });
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
      await Promise.allSettled([...detached.attempts]);
      // (Read through a function: recordDetached reassigns it, which the compiler cannot see.)
      const writing = (): Promise<void> | null => detached.writing;
      for (let write = writing(); write; write = writing()) await write;
    },
  };
}

/** Where an attempt's outcome goes: its batch's wave, or the engine's once the batch stopped waiting. */
type Sink = { wave: Wave; detached: boolean };

/** An attempt in flight: the events it sends (one, or a batch for one destination) and when it started. */
type InFlight = { startedAt: number; works: readonly Work[] };

/** Slow-lane jobs for diverted events: their try kept, grouped by delay, EVENTS_PER_JOB to a job. */
function divertedJobs(diverted: Wave['diverted']): { data: DeliveryJob; options?: { startAfter: number } }[] {
  const groups = new Map<string, { try: number; afterMs: number; events: [string, number][] }>();
  for (const { work, afterMs } of diverted) {
    const key = `${work.try}:${afterMs}`;
    const group = groups.get(key) ?? { try: work.try, afterMs, events: [] };
    group.events.push([work.event.id, work.generation]);
    groups.set(key, group);
  }
  const jobs: { data: DeliveryJob; options?: { startAfter: number } }[] = [];
  for (const group of groups.values()) {
    for (let i = 0; i < group.events.length; i += EVENTS_PER_JOB) {
      jobs.push({
        data: { events: group.events.slice(i, i + EVENTS_PER_JOB), try: group.try },
        ...(group.afterMs > 0 ? { options: { startAfter: group.afterMs / 1000 } } : {}),
      });
    }
  }
  return jobs;
}

export type DeliveryEngine = ReturnType<typeof createDeliveryEngine>;

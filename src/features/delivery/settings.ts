// Operator settings for webhook delivery (declared here, parsed once at boot by core/settings.ts).
// Invalid values fail the boot (ConfigError) rather than silently falling back to a default.
import { Type } from 'typebox';
import {
  ConfigError,
  customSetting,
  defineSettings,
  numberSetting,
  readSettings,
  type RawEnv,
} from '../../core/settings.ts';
import { DELIVERY_TIMEOUT_MS } from './retry-policy.ts';

export type WebhookSettings = {
  /**
   * WEBHOOK_TIMEOUT (10s): how long a receiver has to answer one attempt, whatever its kind: the
   * engine's deadline for the whole exchange (connect, TLS, first byte, body), past which it
   * closes the connection.
   */
  timeoutMs: number;
  /** WEBHOOK_CONNECT_TIMEOUT (5s, at most WEBHOOK_TIMEOUT): how long opening a connection may take. */
  connectTimeoutMs: number;
  /**
   * WEBHOOK_DESTINATION_CONCURRENCY (25): attempts one destination may have in flight in a process,
   * across batches and lanes: a destination that stops answering holds at most this many.
   */
  destinationConcurrency: number;
  /**
   * WEBHOOK_DEVELOPER_CONCURRENCY (100): attempts one developer may have in flight in a process,
   * over all its destinations: a developer whose destinations stop answering holds at most this many.
   */
  developerConcurrency: number;
  /**
   * WEBHOOK_BATCH_WAIT (250ms): how long a batch waits on one destination (an answer, or a slot of its
   * share) before it goes on without it: the attempt finishes outside the batch and the event, or
   * the rest of that destination's events, take the slow lane.
   */
  batchWaitMs: number;
  /**
   * WEBHOOK_RETRY_SCALE (1): multiplies the published retry schedule. Below 1 only for tests and
   * staging, so a day of retries fits in seconds; a receiver's Retry-After is never scaled.
   */
  retryScale: number;
  /** WEBHOOK_FAILING_AFTER (24h): continuous failure for this long marks a destination `failing`. */
  failingAfterMs: number;
  /** WEBHOOK_DISABLE_AFTER (5d): continuous failure for this long disables it (events are held). */
  disableAfterMs: number;
  /** WEBHOOK_RETENTION (30d): finished events and their attempt log are deleted after this. */
  retentionMs: number;
  /**
   * WEBHOOK_MAX_PAYLOAD_BYTES (10 MiB): the largest body an emitter should hand over; a feature
   * with more to send splits it (data events go out as announced chunks).
   */
  maxPayloadBytes: number;
  /** WEBHOOK_CHUNK_MAX_OBJECTS (10): records per chunk once a feature splits a delivery. */
  chunkMaxObjects: number;
  /** WEBHOOK_BATCH_SIZE (50): jobs one worker claims at a time (a bulk emit puts up to 25 events in a job). */
  batchSize: number;
  /** WEBHOOK_CONCURRENCY (100): requests one worker has in flight at most (the next starts as one is answered). */
  concurrency: number;
  /** WEBHOOK_WORKERS (2): workers per process on the main lane; the slow lane gets half (at least one). */
  workers: number;
  /** WEBHOOK_SLOW_AFTER (5s): an answer slower than this moves its destination to the slow lane for a minute. */
  slowAfterMs: number;
  /**
   * WEBHOOK_STUCK_AFTER (1h): a pending event whose attempt came due longer ago than this has lost
   * its queue job (the job ran out of retries during a database outage, say); the stuck-event
   * sweeper queues it again. Longer than the queue's own retries of a batch (about 25 minutes).
   */
  stuckAfterMs: number;
  /**
   * WEBHOOK_HEALTHCHECK_INTERVAL (1h, or `off`): how often every enabled destination gets a
   * `healthcheck` event. Whole minutes, at least one.
   */
  healthcheckIntervalMinutes: number | null;
};

export const DEFAULT_MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
export const DEFAULT_CHUNK_MAX_OBJECTS = 10;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `250ms`, `10s`, `30m`, `24h`, `5d`, or a bare number of milliseconds. */
export function parseDuration(raw: string, name: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(raw.trim());
  if (!match) throw new ConfigError(`${name} must be a duration such as 500ms, 10s, 24h or 5d, got "${raw}"`);
  return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 'ms']!);
}

function parseHealthcheckInterval(raw: string): number | null {
  if (raw.trim() === 'off') return null;
  const ms = parseDuration(raw, 'WEBHOOK_HEALTHCHECK_INTERVAL');
  const minutes = ms / UNIT_MS.m!;
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > 24 * 60) {
    throw new ConfigError(
      `WEBHOOK_HEALTHCHECK_INTERVAL must be whole minutes between 1m and 24h, or off; got "${raw}"`,
    );
  }
  return minutes;
}

const positive = (fallback: number, integer: boolean, description: string) =>
  numberSetting({
    description,
    default: fallback,
    integer,
    exclusiveMinimum: 0,
    problem: `must be a positive ${integer ? 'integer' : 'number'}`,
  });

/** Prints a default the way an operator writes it (`24h` rather than 86400000). */
function durationText(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    // A day is written in hours (24h), longer spans in days.
    if (unit === 'd' && ms < 2 * UNIT_MS.d!) continue;
    if (ms % UNIT_MS[unit]! === 0) return `${ms / UNIT_MS[unit]!}${unit}`;
  }
  return `${ms}ms`;
}

const duration = (fallback: number, description: string) =>
  customSetting({
    description,
    schema: Type.String({
      pattern: '^\\d+(\\.\\d+)?(ms|s|m|h|d)?$',
      default: durationText(fallback),
      description,
    }),
    example: durationText(fallback),
    parse: (raw, name) => {
      if (raw === undefined || raw.trim() === '') return fallback;
      const ms = parseDuration(raw, name);
      if (ms <= 0) throw new ConfigError(`${name} must be longer than zero`);
      return ms;
    },
  });

export const webhookSettings = defineSettings({
  id: 'webhooks',
  owner: 'features/delivery',
  intro: ['Webhook delivery (all optional; durations take ms, s, m, h or d). Full table: docs/webhooks.md.'],
  settings: {
    WEBHOOK_TIMEOUT: duration(
      DELIVERY_TIMEOUT_MS,
      'How long a destination (any kind) has to answer one attempt; past it the connection is closed.',
    ),
    WEBHOOK_CONNECT_TIMEOUT: duration(
      5000,
      'How long opening a connection to a destination may take (at most WEBHOOK_TIMEOUT).',
    ),
    WEBHOOK_DESTINATION_CONCURRENCY: positive(
      25,
      true,
      'Attempts one destination may have in flight per process; a silent destination holds at most this many.',
    ),
    WEBHOOK_RETRY_SCALE: positive(
      1,
      false,
      "Multiplies the published retry schedule (below 1 only for tests and staging; a receiver's Retry-After is never scaled).",
    ),
    WEBHOOK_FAILING_AFTER: duration(
      24 * UNIT_MS.h!,
      'Continuous failure for this long marks a destination failing.',
    ),
    WEBHOOK_DISABLE_AFTER: duration(
      5 * UNIT_MS.d!,
      'Continuous failure for this long disables a destination (its events are held).',
    ),
    WEBHOOK_RETENTION: duration(
      30 * UNIT_MS.d!,
      'Finished events and their attempt log are deleted after this.',
    ),
    WEBHOOK_MAX_PAYLOAD_BYTES: positive(
      DEFAULT_MAX_PAYLOAD_BYTES,
      true,
      'The largest body an emitter hands over; a feature with more to send splits it.',
    ),
    WEBHOOK_CHUNK_MAX_OBJECTS: positive(
      DEFAULT_CHUNK_MAX_OBJECTS,
      true,
      'Records per chunk once a feature splits a delivery.',
    ),
    WEBHOOK_BATCH_SIZE: positive(
      50,
      true,
      'Jobs one worker claims at a time (a bulk emit puts up to 25 events in a job).',
    ),
    WEBHOOK_CONCURRENCY: positive(100, true, 'Requests one worker has in flight at most.'),
    WEBHOOK_WORKERS: positive(
      2,
      true,
      'Workers per process on the main lane; the slow lane gets half (at least one).',
    ),
    WEBHOOK_DEVELOPER_CONCURRENCY: positive(
      100,
      true,
      'Attempts one developer may have in flight per process, over all its destinations.',
    ),
    WEBHOOK_BATCH_WAIT: duration(
      // 250 ms, not 1 s: while a silent destination's attempts held batches for a second each,
      // every other developer's events waited for a free batch (bench/destination-isolation.ts:
      // B's p95 58× its baseline at 1 s, 1.2× at 250 ms).
      250,
      'How long a batch waits on one destination before it goes on without it (the attempt finishes on its own).',
    ),
    WEBHOOK_SLOW_AFTER: duration(
      5000,
      'An answer slower than this moves its destination to the slow lane for a minute.',
    ),
    WEBHOOK_STUCK_AFTER: duration(
      UNIT_MS.h!,
      'A pending event whose attempt was due this long ago lost its job; a sweeper queues it again.',
    ),
    WEBHOOK_HEALTHCHECK_INTERVAL: customSetting({
      description:
        'How often every enabled destination gets a healthcheck event: whole minutes from 1m to 24h, or off.',
      schema: Type.Union([Type.Integer({ minimum: 1, maximum: 1440 }), Type.Null()], { default: 60 }),
      example: '1h',
      parse: (raw) => (raw === undefined || raw.trim() === '' ? 60 : parseHealthcheckInterval(raw)),
    }),
  },
  build: (v): WebhookSettings => {
    if (v.WEBHOOK_DISABLE_AFTER < v.WEBHOOK_FAILING_AFTER) {
      throw new ConfigError('WEBHOOK_DISABLE_AFTER must not be shorter than WEBHOOK_FAILING_AFTER');
    }
    return {
      timeoutMs: v.WEBHOOK_TIMEOUT,
      connectTimeoutMs: Math.min(v.WEBHOOK_CONNECT_TIMEOUT, v.WEBHOOK_TIMEOUT),
      destinationConcurrency: v.WEBHOOK_DESTINATION_CONCURRENCY,
      developerConcurrency: v.WEBHOOK_DEVELOPER_CONCURRENCY,
      batchWaitMs: v.WEBHOOK_BATCH_WAIT,
      retryScale: v.WEBHOOK_RETRY_SCALE,
      failingAfterMs: v.WEBHOOK_FAILING_AFTER,
      disableAfterMs: v.WEBHOOK_DISABLE_AFTER,
      retentionMs: v.WEBHOOK_RETENTION,
      maxPayloadBytes: v.WEBHOOK_MAX_PAYLOAD_BYTES,
      chunkMaxObjects: v.WEBHOOK_CHUNK_MAX_OBJECTS,
      batchSize: v.WEBHOOK_BATCH_SIZE,
      concurrency: v.WEBHOOK_CONCURRENCY,
      workers: v.WEBHOOK_WORKERS,
      slowAfterMs: v.WEBHOOK_SLOW_AFTER,
      stuckAfterMs: v.WEBHOOK_STUCK_AFTER,
      healthcheckIntervalMinutes: v.WEBHOOK_HEALTHCHECK_INTERVAL,
    };
  },
});

export const loadWebhookSettings = (env: RawEnv): WebhookSettings => readSettings(webhookSettings, env);

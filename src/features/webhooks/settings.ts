// Operator settings for webhook delivery, read from the environment once at boot. Invalid values
// fail the boot (ConfigError) rather than silently falling back to a default.
import { ConfigError } from '../../core/config.ts';
import { DELIVERY_TIMEOUT_MS } from './retry-policy.ts';

export type WebhookSettings = {
  /** WEBHOOK_TIMEOUT (10s): how long a receiver has to answer one attempt. */
  timeoutMs: number;
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
  /** WEBHOOK_CONCURRENCY (100): requests one worker has in flight at most (it sends a batch in waves of this size). */
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

function read<T>(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: T,
  parse: (raw: string) => T,
): T {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? fallback : parse(raw);
}

function positive(name: string, integer: boolean) {
  return (raw: string) => {
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
      throw new ConfigError(`${name} must be a positive ${integer ? 'integer' : 'number'}, got "${raw}"`);
    }
    return value;
  };
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

export function loadWebhookSettings(env: Readonly<Record<string, string | undefined>>): WebhookSettings {
  const duration = (name: string, fallback: number) =>
    read(env, name, fallback, (raw) => {
      const ms = parseDuration(raw, name);
      if (ms <= 0) throw new ConfigError(`${name} must be longer than zero`);
      return ms;
    });
  const settings: WebhookSettings = {
    timeoutMs: duration('WEBHOOK_TIMEOUT', DELIVERY_TIMEOUT_MS),
    retryScale: read(env, 'WEBHOOK_RETRY_SCALE', 1, positive('WEBHOOK_RETRY_SCALE', false)),
    failingAfterMs: duration('WEBHOOK_FAILING_AFTER', 24 * UNIT_MS.h!),
    disableAfterMs: duration('WEBHOOK_DISABLE_AFTER', 5 * UNIT_MS.d!),
    retentionMs: duration('WEBHOOK_RETENTION', 30 * UNIT_MS.d!),
    maxPayloadBytes: read(
      env,
      'WEBHOOK_MAX_PAYLOAD_BYTES',
      DEFAULT_MAX_PAYLOAD_BYTES,
      positive('WEBHOOK_MAX_PAYLOAD_BYTES', true),
    ),
    chunkMaxObjects: read(
      env,
      'WEBHOOK_CHUNK_MAX_OBJECTS',
      DEFAULT_CHUNK_MAX_OBJECTS,
      positive('WEBHOOK_CHUNK_MAX_OBJECTS', true),
    ),
    batchSize: read(env, 'WEBHOOK_BATCH_SIZE', 50, positive('WEBHOOK_BATCH_SIZE', true)),
    concurrency: read(env, 'WEBHOOK_CONCURRENCY', 100, positive('WEBHOOK_CONCURRENCY', true)),
    workers: read(env, 'WEBHOOK_WORKERS', 2, positive('WEBHOOK_WORKERS', true)),
    slowAfterMs: duration('WEBHOOK_SLOW_AFTER', 5000),
    stuckAfterMs: duration('WEBHOOK_STUCK_AFTER', UNIT_MS.h!),
    healthcheckIntervalMinutes: read(env, 'WEBHOOK_HEALTHCHECK_INTERVAL', 60, parseHealthcheckInterval),
  };
  if (settings.disableAfterMs < settings.failingAfterMs) {
    throw new ConfigError('WEBHOOK_DISABLE_AFTER must not be shorter than WEBHOOK_FAILING_AFTER');
  }
  return settings;
}

// What one inbound notification may make Tributary fetch, whoever sent it. A provider declares
// the longest span its notifications name (`api.notificationSpanSeconds`) and the URLs its
// callbacks may be (`api.notificationCallbacks`); the sync applies these pure rules to every
// notification before it is queued, so a forged one naming 1970 → now, or a callback on another
// host, costs nothing beyond what a real one costs.
import type { DataNotification, ProviderApi } from '../../provider-kit/api.ts';

/** Allowance for clocks: a provider's "now" may run a little ahead of ours. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** Where the notification's span may lie: from the connection's start to now. */
export type SpanBounds = { connectedSince: Date | null; now: Date };

/**
 * The notification with its span clamped to the declared maximum (keeping its end, the newest
 * part) and to the connection's lifetime; null when it ends before the connection began.
 */
export function clampSpan(
  notification: DataNotification,
  maxSeconds: number | undefined,
  bounds: SpanBounds,
): DataNotification | null {
  const span = notification.span;
  if (!span) return notification;
  let start = Date.parse(span.start);
  let end = Date.parse(span.end);
  if (!Number.isFinite(start) || !Number.isFinite(end) || end < start) return null;
  end = Math.min(end, bounds.now.getTime() + CLOCK_SKEW_MS);
  const longest = maxSeconds === undefined ? null : maxSeconds * 1000;
  if (longest !== null) start = Math.max(start, end - longest);
  if (bounds.connectedSince) {
    // A span must overlap the connection's life; a real one may begin a little before it (an
    // upload window open when the user connected), by at most the longest span.
    const since = bounds.connectedSince.getTime();
    if (end < since) return null;
    start = Math.max(start, since - (longest ?? 0));
  }
  if (end < start) return null;
  const clamped = { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
  if (clamped.start === span.start && clamped.end === span.end) return notification;
  // A callback fetches exactly the span it came with, which a URL cannot be clamped to: a
  // callback whose span was too long or reached before the connection is not the provider's.
  return { ...notification, span: clamped, ...(notification.callbacks ? { callbacks: [] } : {}) };
}

/**
 * The callback as the declared URL it stands for (same path, its query kept), when its origin
 * and path are exactly those of one declared callback as this deployment calls it; else null.
 */
export function declaredCallback(
  callback: string,
  declared: readonly string[],
  resolve: (declaredUrl: string) => string,
): string | null {
  let url: URL;
  try {
    url = new URL(callback);
  } catch {
    return null;
  }
  if (url.username || url.password || url.hash) return null;
  for (const candidate of declared) {
    const resolved = new URL(resolve(candidate));
    if (url.origin === resolved.origin && url.pathname === resolved.pathname)
      return `${candidate}${url.search}`;
  }
  return null;
}

/** The notification with only the callbacks the provider declares, in their declared form. */
export function keepDeclaredCallbacks(
  notification: DataNotification,
  api: ProviderApi | undefined,
  resolve: (declaredUrl: string) => string,
): DataNotification {
  if (!notification.callbacks) return notification;
  const declared = api?.notificationCallbacks ?? [];
  const kept = notification.callbacks.flatMap((callback) => {
    const found = declaredCallback(callback, declared, resolve);
    return found ? [found] : [];
  });
  return { ...notification, callbacks: [...new Set(kept)] };
}

/** Whether anything is left to fetch: a notification whose every callback was dropped has none. */
export const hasWork = (notification: DataNotification) =>
  !notification.callbacks || notification.callbacks.length > 0 || notification.inline !== undefined;

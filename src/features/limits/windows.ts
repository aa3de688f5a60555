// Fixed-window limits for what anyone can call without a credential. The counters live in the
// database (`request_windows`) and are taken by one conditional upsert, so a limit holds across
// every API process, and a request past it changes nothing.
import { sql } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { AppError } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';

/** At most `limit` hits per `windowSeconds`, windows aligned to the epoch. */
export type WindowRule = { limit: number; windowSeconds: number };

export type WindowVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export function windowStartOf(now: Date, windowSeconds: number): Date {
  const span = windowSeconds * 1000;
  return new Date(Math.floor(now.getTime() / span) * span);
}

/** The 429 every limited public endpoint answers (hosted pages render it as a page instead). */
export function tooManyRequests(detail: string, retryAfterSeconds: number): AppError {
  return new AppError('rate_limited', `${detail}; retry in ${retryAfterSeconds} s`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
}

export function createRequestWindows(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;

  /**
   * Counts one hit in `scope`'s current window if it still has room. A hit past the limit is
   * refused and not counted, so the window reopens on time however hard it is hammered.
   */
  async function take(scope: string, rule: WindowRule, trx: Db = db): Promise<WindowVerdict> {
    const now = clock.now();
    const start = windowStartOf(now, rule.windowSeconds);
    const counted = await trx
      .insertInto('request_windows')
      .values({ scope, window_seconds: rule.windowSeconds, window_start: start, hits: 1 })
      .onConflict((conflict) =>
        conflict
          .columns(['scope', 'window_seconds', 'window_start'])
          .doUpdateSet({ hits: sql<number>`request_windows.hits + 1` })
          .where('request_windows.hits', '<', rule.limit),
      )
      .returning('hits')
      .executeTakeFirst();
    if (counted && counted.hits <= rule.limit) return { allowed: true };
    const endsAt = start.getTime() + rule.windowSeconds * 1000;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((endsAt - now.getTime()) / 1000)) };
  }

  return {
    take,

    /** Counts one hit in `scope`, or throws the 429 (with Retry-After) saying `detail`. */
    async enforce(scope: string, rule: WindowRule, detail: string): Promise<void> {
      const verdict = await take(scope, rule);
      if (!verdict.allowed) throw tooManyRequests(detail, verdict.retryAfterSeconds);
    },

    /** Every scope must have room; the first that has none decides the wait. */
    async takeAll(checks: readonly { scope: string; rule: WindowRule }[]): Promise<WindowVerdict> {
      for (const check of checks) {
        const verdict = await take(check.scope, check.rule);
        if (!verdict.allowed) return verdict;
      }
      return { allowed: true };
    },

    /** Hits counted in `scope`'s current window (tests and diagnostics). */
    async used(scope: string, rule: WindowRule): Promise<number> {
      const row = await db
        .selectFrom('request_windows')
        .select('hits')
        .where('scope', '=', scope)
        .where('window_seconds', '=', rule.windowSeconds)
        .where('window_start', '=', windowStartOf(clock.now(), rule.windowSeconds))
        .executeTakeFirst();
      return row?.hits ?? 0;
    },

    /** Drops windows that have ended; returns how many. */
    async prune(): Promise<number> {
      const result = await sql`
        DELETE FROM request_windows
        WHERE window_start + window_seconds * interval '1 second' <= ${clock.now()}`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}

export type RequestWindows = ReturnType<typeof createRequestWindows>;

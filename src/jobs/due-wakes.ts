// Wake-ups for jobs that no notification announces. pg-boss wakes a queue's workers by NOTIFY when
// a job is sent, but a job deferred with `startAfter`, or a failed job's retry, comes due in
// silence: only a poll finds it. Polling every queue every second for that cost ~40 fetches a
// second in an idle worker (28 queues, some with two workers), and as many during a delivery
// flood, for queues that had nothing to do. So idle queues poll rarely (queue.ts
// IDLE_POLL_SECONDS), and this process wakes a queue's workers itself when it knows a job is due:
// one it deferred (at the second it comes due), and the retries of one that failed here (every
// second for a while after the failure, since pg-boss adds jitter to the retry time). What another
// process deferred, or the retries of a job whose process died, the rare poll finds.
//
// A job sent inside a transaction with a `startAfter` date reached by the time it is sent (a delay
// of 0 computed from the clock during the transaction) is announced by no NOTIFY either: pg-boss
// sends one only when `start_after <= now()`, and now() is when the transaction began, before the
// date was computed. Such a job wakes its queue at the next tick, after the transaction has
// (usually) committed.

/** After a job fails in this process, its queue is woken every second for this long (its retries). */
export const AFTER_FAILURE_MS = 60_000;
/** Due seconds remembered per queue at most; past that a deferred job waits for the poll. */
const MAX_DUE_PER_QUEUE = 10_000;
const TICK_MS = 1_000;

export type DueWakes = {
  /** A job of `queue` comes due at `at` (a Date, or seconds from now as pg-boss reads a number). */
  deferred(queue: string, at: Date | number): void;
  /** A job of `queue` failed here: its retry (or its dead letter, `also`) comes due soon. */
  failed(queue: string, ...also: string[]): void;
  /** Runs the wake-ups due at `now` (the ticker calls it; tests call it with a clock of their own). */
  tick(now?: number): void;
  start(): void;
  stop(): void;
};

export function createDueWakes(wake: (queue: string) => void, now: () => number = Date.now): DueWakes {
  /** By queue: the seconds (epoch) at which a job deferred here comes due. */
  const due = new Map<string, Set<number>>();
  /** By queue: until when it is woken every tick (failures' retries). */
  const hotUntil = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;

  function tick(at = now()) {
    for (const [queue, seconds] of due) {
      let woken = false;
      for (const second of seconds) {
        if (second * 1000 > at) continue;
        seconds.delete(second);
        if (!woken) wake(queue);
        woken = true;
      }
      if (seconds.size === 0) due.delete(queue);
    }
    for (const [queue, until] of hotUntil) {
      if (until < at) hotUntil.delete(queue);
      else wake(queue);
    }
  }

  return {
    deferred(queue, at) {
      // A delay in seconds counts from the sending transaction's start in the database, as its
      // NOTIFY does: one of 0 or less is due at once and announced.
      if (typeof at === 'number' && at <= 0) return;
      const when = typeof at === 'number' ? now() + at * 1000 : at.getTime();
      if (!Number.isFinite(when)) return;
      const seconds = due.get(queue) ?? new Set<number>();
      if (seconds.size >= MAX_DUE_PER_QUEUE) return;
      seconds.add(Math.ceil(when / 1000));
      due.set(queue, seconds);
    },
    failed(queue, ...also) {
      const until = now() + AFTER_FAILURE_MS;
      for (const name of [queue, ...also]) hotUntil.set(name, until);
    },
    tick,
    start() {
      if (timer) return;
      timer = setInterval(() => tick(), TICK_MS);
      // Never what keeps a process alive.
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
      due.clear();
      hotUntil.clear();
    },
  };
}

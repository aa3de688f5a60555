// The bulkhead of the delivery engine: each destination (route, destination-repo.ts `routeKey`)
// may have at most `capacity` attempts in flight in this process, whichever batches and lanes
// they come from, so a destination that stops answering occupies its own share of the sockets
// and workers and never anyone else's. The engine asks before each attempt: a slot, or how long
// the destination's oldest attempt in flight has been waiting (a busy but answering destination
// gets its next slot soon; a silent one does not, and its events go to the slow lane instead).
// A freed slot goes to the waiting batch that started first: served in arrival order, two
// batches sharing a busy destination advanced in step, ended together, and both paid a batch's
// end (last outcome write, job completion, next fetch and read) with nothing in flight, ~100 ms
// each time on two shared cores (bench/FINDINGS.md, deliver10). Served oldest first,
// one batch ends while the other keeps the destination busy.

export type RouteShares = {
  /** A slot for `route` (call the returned function when the attempt ends), or null when its share is taken. */
  take(route: string): (() => void) | null;
  /** How long the oldest attempt in flight to `route` has been running (0 when none). */
  oldestMs(route: string): number;
  /**
   * Resolves when a slot of `route` frees and this waiter is the first in line, or after `ms`
   * (at the latest: waiters share one timer, set for the earliest limit), whichever comes first.
   * The line is ordered by `rank` (lowest first; the engine gives the order its batches started
   * in), then by arrival.
   */
  waitForSlot(route: string, ms: number, rank?: number): Promise<void>;
  /** Attempts in flight to `route` (for tests and metrics). */
  inFlight(route: string): number;
};

/** A batch waiting for a slot: its rank in the line (lowest first) and how to wake it. */
type Waiter = { rank: number; wake: () => void };

/** One destination's attempts in flight here, and the batches waiting for one of them to end. */
type Load = {
  started: Set<{ at: number }>;
  /** By rank, then in the order they came; a freed slot wakes the first. */
  waiters: Waiter[];
  /** One timer for every waiter of the route, set for the earliest of their limits. */
  timer: NodeJS.Timeout | null;
  timerAt: number;
};

export function createRouteShares(capacity: number, now: () => number = Date.now): RouteShares {
  const routes = new Map<string, Load>();

  const entry = (route: string) => {
    let found = routes.get(route);
    if (!found) {
      found = { started: new Set(), waiters: [], timer: null, timerAt: 0 };
      routes.set(route, found);
    }
    return found;
  };

  const forget = (route: string, load: Load) => {
    if (load.started.size === 0 && load.waiters.length === 0 && load.timer === null) routes.delete(route);
  };

  /** The waiters' limit came: every one still waiting looks again (and waits again if it may). */
  const wakeAll = (route: string, load: Load) => {
    load.timer = null;
    const waiters = load.waiters;
    load.waiters = [];
    for (const waiter of waiters) waiter.wake();
    forget(route, load);
  };

  return {
    take(route) {
      const load = entry(route);
      if (load.started.size >= capacity) return null;
      const mark = { at: now() };
      load.started.add(mark);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        load.started.delete(mark);
        // One slot freed, one waiter woken: it takes the slot, or (its developer's share full)
        // gives it back at once, which wakes the next. (Waking every waiter sent all but one back
        // to wait again, each with a new promise: a wait per delivery in the engine's profile.)
        // (The timer stays set when the last waiter leaves, not holding the process open: the next
        // waiter's limit is the same or later, the oldest attempt being the same or younger, so it
        // is kept instead of cleared and set again per slot; firing with nobody waiting, it only
        // forgets the route.)
        const next = load.waiters.shift();
        if (next) {
          next.wake();
          if (load.waiters.length === 0) load.timer?.unref();
        }
        forget(route, load);
      };
    },
    oldestMs(route) {
      const load = routes.get(route);
      if (!load || load.started.size === 0) return 0;
      // A Set keeps insertion order and marks are added as attempts start: the first is the oldest.
      const [oldest] = load.started;
      return now() - oldest!.at;
    },
    waitForSlot(route, ms, rank = 0) {
      const load = entry(route);
      const limit = Date.now() + Math.max(0, ms);
      // (A timer per route, not per waiter: a waiter's limit is when the destination's oldest
      // attempt passes the batch's wait, the same for every waiter then. A waiter woken before its
      // own limit looks again and waits again.)
      if (load.timer === null || limit < load.timerAt) {
        if (load.timer !== null) clearTimeout(load.timer);
        load.timerAt = limit;
        load.timer = setTimeout(wakeAll, Math.max(0, ms), route, load);
      } else if (load.waiters.length === 0) load.timer.ref();
      return new Promise<void>((wake) => {
        // (A few waiters at most: one per batch sending to this destination.)
        const waiters = load.waiters;
        let at = waiters.length;
        while (at > 0 && waiters[at - 1]!.rank > rank) at--;
        waiters.splice(at, 0, { rank, wake });
      });
    },
    inFlight: (route) => routes.get(route)?.started.size ?? 0,
  };
}

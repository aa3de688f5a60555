// The bulkhead of the delivery engine: each destination (route, destination-repo.ts `routeKey`)
// may have at most `capacity` attempts in flight in this process, whichever batches and lanes
// they come from, so a destination that stops answering occupies its own share of the sockets
// and workers and never anyone else's. The engine asks before each attempt: a slot, or how long
// the destination's oldest attempt in flight has been waiting (a busy but answering destination
// gets its next slot soon; a silent one does not, and its events go to the slow lane instead).

export type RouteShares = {
  /** A slot for `route` (call the returned function when the attempt ends), or null when its share is taken. */
  take(route: string): (() => void) | null;
  /** How long the oldest attempt in flight to `route` has been running (0 when none). */
  oldestMs(route: string): number;
  /** Resolves when a slot of `route` frees, or after `ms`, whichever comes first. */
  waitForSlot(route: string, ms: number): Promise<void>;
  /** Attempts in flight to `route` (for tests and metrics). */
  inFlight(route: string): number;
};

export function createRouteShares(capacity: number, now: () => number = Date.now): RouteShares {
  const routes = new Map<string, { started: Set<{ at: number }>; waiters: Set<() => void> }>();

  const entry = (route: string) => {
    let found = routes.get(route);
    if (!found) {
      found = { started: new Set(), waiters: new Set() };
      routes.set(route, found);
    }
    return found;
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
        if (load.waiters.size > 0) {
          const waiters = [...load.waiters];
          load.waiters.clear();
          for (const wake of waiters) wake();
        }
        if (load.started.size === 0 && load.waiters.size === 0) routes.delete(route);
      };
    },
    oldestMs(route) {
      const load = routes.get(route);
      if (!load || load.started.size === 0) return 0;
      // A Set keeps insertion order and marks are added as attempts start: the first is the oldest.
      const [oldest] = load.started;
      return now() - oldest!.at;
    },
    waitForSlot(route, ms) {
      const load = entry(route);
      return new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          load.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(0, ms));
        load.waiters.add(wake);
      });
    },
    inFlight: (route) => routes.get(route)?.started.size ?? 0,
  };
}

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's `gc`, as `--expose-gc` exposes it: a full collection, run as its own task or at once. */
export type Collect = (options: { type: 'major'; execution: 'async' | 'sync' }) => void;

/**
 * Whether the operator said `--no-expose-gc` on node's command line: then the process asks for no
 * collections at all. The last word on the flag wins, as in Node.
 */
function refusedByOperator(execArgv: readonly string[]): boolean {
  const words = execArgv.map((word) => word.replace(/_/g, '-'));
  const last = words.findLast((word) => word === '--expose-gc' || word === '--no-expose-gc');
  return last === '--no-expose-gc';
}

/**
 * V8's collection function, for a process that was not started with `--expose-gc`. That flag is
 * part of the hash V8 checks every code cache against, and Node's built-in modules carry a code
 * cache made without it: a process started with it compiles each built-in module it loads from
 * source (~40 ms of a service's start, issue 42), and its compile cache is a second one. So the
 * flag is set only while one new context is made (V8 gives a context made then its `gc`) and set
 * back at once: nothing is compiled in between, and the hash is as before once this returns.
 */
function collectorFromNewContext(): Collect | undefined {
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as Collect;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/**
 * The process's collection function, made now: the global `gc` of a process started with
 * `--expose-gc` (an operator's own flag), none if the operator refused it (`--no-expose-gc`), and
 * otherwise one from a new context (collectorFromNewContext). Undefined when there is none.
 */
export function gcNow(execArgv: readonly string[] = process.execArgv): Collect | undefined {
  if (refusedByOperator(execArgv)) return undefined;
  return (globalThis as { gc?: Collect }).gc ?? collectorFromNewContext();
}

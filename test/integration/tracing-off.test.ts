import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

/**
 * Tracing off costs a process nothing it would notice: without an endpoint, no module of the
 * OpenTelemetry SDK, its context manager or its exporter is even resolved (only the API, which
 * pg-boss and prom-client import anyway); our seams are flag checks. A child process loads the serving runtime with Node's
 * module hooks recording every module resolved, then starts tracing from its settings: once with
 * none set, once with an endpoint (which must load them, or the check would prove nothing).
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');

const SCRIPT = `
import module from 'node:module';
const resolved = new Set();
module.registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    resolved.add(result.url);
    return result;
  },
});
const { loadRuntimeConfig } = await import('./src/runtime/settings.ts');
await import('./src/runtime/cli/serve.ts');
const { tracingSettings } = await import('./src/core/tracing-settings.ts');
const { startTracing } = await import('./src/runtime/tracing.ts');
const { createLogger } = await import('./src/core/log.ts');
const config = loadRuntimeConfig(process.env);
const tracing = await startTracing(config.settings.get(tracingSettings), createLogger('silent'));
const packages = [...resolved]
  .map((url) => /node_modules\\/(@opentelemetry\\/[^/]+)\\//.exec(url)?.[1])
  .filter(Boolean);
process.stdout.write(JSON.stringify({ started: tracing !== null, packages: [...new Set(packages)].sort() }));
await tracing?.shutdown();
`;

function loadWith(env: Record<string, string>): Promise<{ started: boolean; packages: string[] }> {
  return new Promise((resolve, reject) => {
    execFile(
      NODE,
      ['--input-type=module', '-e', SCRIPT],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as { started: boolean; packages: string[] });
      },
    );
  });
}

test('without an endpoint, no OpenTelemetry SDK module is loaded; with one, it is', async () => {
  const off = await loadWith({});
  assert.equal(off.started, false);
  // At most the API: some dependencies import it whatever the setting (a no-op without an SDK),
  // and which of them load at start changes as modules are loaded on first use.
  assert.deepEqual(
    off.packages.filter((name) => name !== '@opentelemetry/api'),
    [],
    'nothing but the API the dependencies load',
  );

  const on = await loadWith({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
  assert.equal(on.started, true);
  for (const sdk of [
    '@opentelemetry/api',
    '@opentelemetry/sdk-trace',
    '@opentelemetry/context-async-hooks',
    '@opentelemetry/exporter-trace-otlp-http',
  ])
    assert.ok(on.packages.includes(sdk), `${sdk} loaded once tracing is on: ${on.packages.join(', ')}`);
});

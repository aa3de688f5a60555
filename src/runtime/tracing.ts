// Starts the OpenTelemetry SDK when an OTLP endpoint is set (core/tracing-settings.ts). The SDK,
// its context manager and the exporter are imported here, on demand: a process without an
// endpoint never loads them (test/unit/tracing-off.test.ts checks that no module of theirs is
// resolved). Spans are batched and POSTed as OTLP/HTTP JSON; an export that fails is logged (at
// most once a minute) and the spans of that batch are dropped, never the request.
import type { DiagLogger } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { setTracingEnabled } from '../core/tracing.ts';
import type { TracingSettings } from '../core/tracing-settings.ts';
import { version } from '../core/version.ts';

export type Tracing = {
  /** Exports every finished span now (tests; shutdown does it too). */
  flush(): Promise<void>;
  /** Flushes, then unregisters everything: spans are no-ops again. */
  shutdown(): Promise<void>;
};

const REPORT_EVERY_MS = 60_000;

/** The SDK's own complaints (a failed export) go to the service log, rate-limited. */
function diagnostics(log: Logger): DiagLogger {
  let lastReport = 0;
  const report = (message: string, ...args: unknown[]) => {
    const now = Date.now();
    if (now - lastReport < REPORT_EVERY_MS) return;
    lastReport = now;
    log.warn({ detail: args.map(String).join(' ').slice(0, 500) }, `tracing: ${message}`);
  };
  const ignore = () => undefined;
  return { error: report, warn: report, info: ignore, debug: ignore, verbose: ignore };
}

/** Registers the SDK globally, or returns null (and loads nothing) when no endpoint is set. */
export async function startTracing(settings: TracingSettings, log: Logger): Promise<Tracing | null> {
  if (settings.tracesUrl === undefined) return null;
  const [api, hooks, sdk, otlp, resources, semconv] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const { context, diag, DiagLogLevel, trace } = api;
  diag.setLogger(diagnostics(log), DiagLogLevel.WARN);
  const contextManager = new hooks.AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const exporter = new otlp.OTLPTraceExporter({ url: settings.tracesUrl, headers: settings.headers });
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({
      [semconv.ATTR_SERVICE_NAME]: settings.serviceName,
      [semconv.ATTR_SERVICE_VERSION]: version,
    }),
    sampler: new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(settings.sampleRatio) }),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter })],
  });
  trace.setGlobalTracerProvider(provider);
  setTracingEnabled(api);
  log.info({ endpoint: settings.tracesUrl, sampleRatio: settings.sampleRatio }, 'tracing: exporting spans');
  return {
    flush: () => provider.forceFlush(),
    async shutdown() {
      setTracingEnabled(undefined);
      await provider.shutdown();
      trace.disable();
      context.disable();
      diag.disable();
    },
  };
}

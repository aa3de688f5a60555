// Tracing through the OpenTelemetry API: the few seams that make a trace (an HTTP request, a job,
// a call to a provider, a webhook delivery) start their spans here, and the trace context crosses
// the queue and the outgoing requests as a W3C `traceparent`. Off by default: until the runtime
// starts the SDK (runtime/tracing.ts, loaded only when an endpoint is set) and hands over the API,
// every function here is a flag check that returns at once, and this module loads nothing of
// OpenTelemetry (the API itself is imported by pg-boss and prom-client whatever the setting).
import type * as OpenTelemetryApi from '@opentelemetry/api';
import type { Attributes, Context, Span } from '@opentelemetry/api';
import { version } from './version.ts';

export type { Span } from '@opentelemetry/api';
type Api = typeof OpenTelemetryApi;

/** OpenTelemetry's span kinds (the API's `SpanKind` values), without loading the API to name them. */
export const SpanKind = { INTERNAL: 0, SERVER: 1, CLIENT: 2, PRODUCER: 3, CONSUMER: 4 } as const;
export type SpanKind = (typeof SpanKind)[keyof typeof SpanKind];
/** The API's `TraceFlags.SAMPLED` and `SpanStatusCode.ERROR`. */
const SAMPLED = 1;
const STATUS_ERROR = 2;

/** The API, handed over by the runtime once it has loaded the SDK; absent while tracing is off. */
let otel: Api | undefined;

let enabled = false;

/** Whether spans are recorded and exported (the runtime started the SDK). */
export const tracingEnabled = (): boolean => enabled;

/**
 * Set by the runtime once the SDK is registered, with the API it registered it through (and
 * cleared when it shuts down). Nothing here loads the API itself.
 */
export function setTracingEnabled(api: Api | undefined): void {
  otel = api;
  enabled = api !== undefined;
}

const tracer = (api: Api) => api.trace.getTracer('tributary', version);

export type SpanOptions = {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent (a context read from a job or a request); the active context when absent. */
  parent?: Context;
  /** Spans of other traces this one continues too (a batch of jobs queued by several requests). */
  links?: Context[];
};

/**
 * Runs `fn` inside a new active span, ended when `fn` settles; a throw marks it failed. With
 * tracing off, `fn` runs as it is and receives no span.
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  const api = otel;
  if (!enabled || !api) return fn(undefined);
  const parent = options.parent ?? api.context.active();
  const links = (options.links ?? []).flatMap((linked) => {
    const spanContext = api.trace.getSpanContext(linked);
    return spanContext ? [{ context: spanContext }] : [];
  });
  const span = tracer(api).startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links },
    parent,
  );
  try {
    return await api.context.with(api.trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Starts a span without making it active (the HTTP hooks end it in another callback). */
export function startSpan(name: string, options: SpanOptions): Span | undefined {
  const api = otel;
  if (!enabled || !api) return undefined;
  return tracer(api).startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    options.parent ?? api.context.active(),
  );
}

/** Runs `fn` with `span` active (its children, and what it queues, belong to it). */
export function withActiveSpan<T>(span: Span | undefined, fn: () => T): T {
  const api = otel;
  if (!span || !api) return fn();
  return api.context.with(api.trace.setSpan(api.context.active(), span), fn);
}

export function failSpan(span: Span | undefined, error: unknown): void {
  if (!span) return;
  if (error instanceof Error) span.recordException(error);
  span.setStatus({
    code: STATUS_ERROR,
    message: error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300),
  });
}

/**
 * Runs `fn` outside any trace: work a timer runs on behalf of many callers (the webhook outbox
 * relay) must not be counted in the trace of whichever caller happened to set the timer.
 */
export function outsideTraces<T>(fn: () => T): T {
  const api = otel;
  return enabled && api ? api.context.with(api.ROOT_CONTEXT, fn) : fn();
}

// ---- W3C trace context (https://www.w3.org/TR/trace-context/#traceparent-header) ----

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The `traceparent` of the active span (or of `from`), or undefined when tracing is off or no span is active. */
export function currentTraceparent(from?: Context): string | undefined {
  const api = otel;
  if (!enabled || !api) return undefined;
  const spanContext = api.trace.getSpanContext(from ?? api.context.active());
  if (!spanContext || !api.trace.isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & SAMPLED).toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/**
 * The remote parent a `traceparent` names, or undefined when tracing is off or the value is not
 * one: version ff is invalid, all-zero ids are invalid, and a version 00 value has exactly four
 * fields (the specification's parsing rules; later versions may append fields).
 */
export function contextFromTraceparent(value: unknown): Context | undefined {
  const api = otel;
  if (!enabled || !api || typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return undefined;
  const [whole, versionField, traceId, spanId, flags] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
  ];
  if (versionField === 'ff' || traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  if (versionField === '00' && whole.trim().length !== 55) return undefined;
  return api.trace.setSpanContext(api.ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & SAMPLED,
    isRemote: true,
  });
}

/** `headers` with the active span's `traceparent` added (the same object when there is none). */
export function withTraceHeaders<H extends Record<string, string>>(headers: H): H {
  const traceparent = currentTraceparent();
  return traceparent ? { ...headers, traceparent } : headers;
}

/** The active trace's ids for a log line (pino's mixin), or nothing. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const api = otel;
  if (!enabled || !api) return {};
  const spanContext = api.trace.getSpanContext(api.context.active());
  if (!spanContext || !api.trace.isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

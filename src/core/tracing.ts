// Tracing through the OpenTelemetry API: the few seams that make a trace (an HTTP request, a job,
// a call to a provider, a webhook delivery) start their spans here, and the trace context crosses
// the queue and the outgoing requests as a W3C `traceparent`. Off by default: until the runtime
// starts the SDK (runtime/tracing.ts, loaded only when an endpoint is set), every function here is
// a flag check that returns at once, and the API's own no-op tracer is never even asked.
import {
  type Attributes,
  type Context,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import { version } from './version.ts';

export { SpanKind } from '@opentelemetry/api';
export type { Span } from '@opentelemetry/api';

let enabled = false;

/** Whether spans are recorded and exported (the runtime started the SDK). */
export const tracingEnabled = (): boolean => enabled;

/** Set by the runtime once the SDK is registered (and cleared when it shuts down). */
export function setTracingEnabled(value: boolean): void {
  enabled = value;
}

const tracer = () => trace.getTracer('tributary', version);

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
  if (!enabled) return fn(undefined);
  const parent = options.parent ?? context.active();
  const links = (options.links ?? []).flatMap((linked) => {
    const spanContext = trace.getSpanContext(linked);
    return spanContext ? [{ context: spanContext }] : [];
  });
  const span = tracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Starts a span without making it active (the HTTP hooks end it in another callback). */
export function startSpan(name: string, options: SpanOptions): Span | undefined {
  if (!enabled) return undefined;
  return tracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    options.parent ?? context.active(),
  );
}

/** Runs `fn` with `span` active (its children, and what it queues, belong to it). */
export function withActiveSpan<T>(span: Span | undefined, fn: () => T): T {
  if (!span) return fn();
  return context.with(trace.setSpan(context.active(), span), fn);
}

export function failSpan(span: Span | undefined, error: unknown): void {
  if (!span) return;
  if (error instanceof Error) span.recordException(error);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300),
  });
}

/**
 * Runs `fn` outside any trace: work a timer runs on behalf of many callers (the webhook outbox
 * relay) must not be counted in the trace of whichever caller happened to set the timer.
 */
export function outsideTraces<T>(fn: () => T): T {
  return enabled ? context.with(ROOT_CONTEXT, fn) : fn();
}

// ---- W3C trace context (https://www.w3.org/TR/trace-context/#traceparent-header) ----

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The `traceparent` of the active span (or of `from`), or undefined when tracing is off or no span is active. */
export function currentTraceparent(from?: Context): string | undefined {
  if (!enabled) return undefined;
  const spanContext = trace.getSpanContext(from ?? context.active());
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/**
 * The remote parent a `traceparent` names, or undefined when tracing is off or the value is not
 * one: version ff is invalid, all-zero ids are invalid, and a version 00 value has exactly four
 * fields (the specification's parsing rules; later versions may append fields).
 */
export function contextFromTraceparent(value: unknown): Context | undefined {
  if (!enabled || typeof value !== 'string') return undefined;
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
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
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
  if (!enabled) return {};
  const spanContext = trace.getSpanContext(context.active());
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

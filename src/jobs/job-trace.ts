// A job's trace: the payload carries the trace that queued it, and its handler runs in a span that
// continues it.
import {
  contextFromTraceparent,
  currentTraceparent,
  inSpan,
  SpanKind,
  tracingEnabled,
} from '../core/tracing.ts';

/**
 * Where a job's payload carries the trace that queued it (only while tracing is on): its handler's
 * span is then a child of the request or job that sent it. Taken off before the handler sees the job.
 */
export const TRACE_KEY = '_traceparent';

const isPayloadObject = (data: unknown): data is Record<string, unknown> =>
  typeof data === 'object' && data !== null && !Array.isArray(data);

/** The payload with the trace it continues (the given one, else the active span's), if tracing is on. */
export function traced<T>(data: T, traceparent: string | undefined): T {
  if (!tracingEnabled() || !isPayloadObject(data)) return data;
  const parent = traceparent ?? currentTraceparent();
  return parent === undefined ? data : ({ ...data, [TRACE_KEY]: parent } as T);
}

/** The job as its handler expects it (without the trace key) and the trace it continues. */
export function untraced<J extends { data: unknown }>(job: J): { job: J; traceparent: unknown } {
  if (!isPayloadObject(job.data) || !(TRACE_KEY in job.data)) return { job, traceparent: undefined };
  const { [TRACE_KEY]: traceparent, ...data } = job.data;
  return { job: { ...job, data }, traceparent };
}

/**
 * Runs a batch's handler in a consumer span whose parent is the trace of the batch's first traced
 * job; other jobs' traces are linked. With tracing off, only strips trace keys a traced process put there.
 */
export async function inJobSpan<J extends { data: unknown; id: string }>(
  queue: string,
  jobs: J[],
  handler: (jobs: J[]) => Promise<void>,
): Promise<void> {
  const unwrapped = jobs.map(untraced);
  const plain = unwrapped.map((entry) => entry.job);
  if (!tracingEnabled()) return handler(plain);
  const parents = unwrapped.flatMap((entry) => {
    const parent = contextFromTraceparent(entry.traceparent);
    return parent ? [parent] : [];
  });
  return inSpan(
    `process ${queue}`,
    {
      kind: SpanKind.CONSUMER,
      ...(parents[0] ? { parent: parents[0] } : {}),
      links: parents.slice(1),
      attributes: {
        'messaging.system': 'pg-boss',
        'messaging.operation.type': 'process',
        'messaging.destination.name': queue,
        'messaging.batch.message_count': jobs.length,
        ...(jobs.length === 1 ? { 'messaging.message.id': jobs[0]!.id } : {}),
      },
    },
    () => handler(plain),
  );
}

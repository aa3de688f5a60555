import pino, { type DestinationStream, type Logger } from 'pino';
import { prettyDestination } from './log-pretty.ts';
import { traceLogFields } from './tracing.ts';

/** `auto`: readable lines when stdout is a terminal (a person is watching), JSON otherwise. */
export type LogFormat = 'auto' | 'json' | 'pretty';

/**
 * One logger for the process. Credentials never reach it: auth headers are redacted, and
 * request URLs are logged without their query string (OAuth callbacks carry codes there).
 */
export function createLogger(
  level: string,
  destination?: DestinationStream,
  format: LogFormat = 'auto',
): Logger {
  const options: pino.LoggerOptions = {
    level,
    redact: {
      paths: [
        'req.headers["x-api-key"]',
        'req.headers.authorization',
        'req.headers.cookie',
        '*.access_token',
        '*.refresh_token',
        '*.api_key',
        '*.apiKey',
        '*.client_secret',
      ],
      censor: '[redacted]',
    },
    // With tracing on, a line written inside a span names its trace (trace_id, span_id).
    mixin: traceLogFields,
    serializers: {
      req: (request: { method?: string; url?: string; id?: string }) => ({
        method: request.method,
        url: typeof request.url === 'string' ? request.url.split('?')[0] : undefined,
        id: request.id,
      }),
    },
  };
  if (destination) return pino(options, destination);
  const pretty = format === 'pretty' || (format === 'auto' && Boolean(process.stdout.isTTY));
  return pretty ? pino(options, prettyDestination()) : pino(options);
}

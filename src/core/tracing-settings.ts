// Tracing settings: the standard OpenTelemetry variables (the names every collector's guide
// uses), read and checked here like every other setting. None set: tracing is off and its SDK
// is never loaded.
import { Type } from 'typebox';
import {
  ConfigError,
  customSetting,
  defineSettings,
  numberSetting,
  textSetting,
  urlSetting,
} from './settings.ts';

export type TracingSettings = {
  /** Where spans are POSTed (OTLP over HTTP, JSON encoding); undefined: tracing is off. */
  tracesUrl: string | undefined;
  headers: Record<string, string>;
  serviceName: string;
  /** The share of new traces recorded (a request that arrives with a sampled parent is always recorded). */
  sampleRatio: number;
};

/**
 * `OTEL_EXPORTER_OTLP_HEADERS`: `key=value` pairs separated by commas, values URL-encoded (the
 * OpenTelemetry specification's format for the variable).
 */
function parseHeaders(raw: string | undefined, name: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (raw === undefined || raw.trim() === '') return headers;
  for (const pair of raw.split(',')) {
    const at = pair.indexOf('=');
    const key = at > 0 ? pair.slice(0, at).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key))
      throw new ConfigError(`${name} must be comma-separated key=value pairs, got "${pair.trim()}"`);
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new ConfigError(`${name}: the value of ${key} is not URL-encoded text`);
    }
    headers[key.toLowerCase()] = value;
  }
  return headers;
}

export const tracingSettings = defineSettings({
  id: 'tracing',
  owner: 'core/tracing.ts',
  intro: [
    'OpenTelemetry traces (off unless an endpoint is set): request -> job -> provider call ->',
    'webhook delivery, exported as OTLP over HTTP with the JSON encoding.',
  ],
  settings: {
    OTEL_EXPORTER_OTLP_ENDPOINT: urlSetting({
      description:
        "The OTLP/HTTP collector's base URL (e.g. http://otel-collector:4318); spans go to <url>/v1/traces. Unset: tracing off.",
      default: undefined,
    }),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: urlSetting({
      description: 'The full URL spans are sent to, when it is not <OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces.',
      default: undefined,
    }),
    OTEL_EXPORTER_OTLP_HEADERS: customSetting({
      description:
        'Headers sent with every export (a collector token): key=value pairs, comma-separated, URL-encoded.',
      schema: Type.String(),
      example: '',
      parse: parseHeaders,
    }),
    OTEL_SERVICE_NAME: textSetting({
      description: 'The service name spans carry (service.name).',
      default: 'tributary',
    }),
    OTEL_TRACES_SAMPLER_ARG: numberSetting({
      description:
        'The share of new traces recorded, 0 to 1 (parent-based: a request whose caller sampled it is always recorded).',
      default: 1,
      minimum: 0,
      maximum: 1,
      problem: 'must be a number from 0 to 1',
    }),
  },
  build: (v): TracingSettings => {
    const base = v.OTEL_EXPORTER_OTLP_ENDPOINT;
    const tracesUrl =
      v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
      (base === undefined ? undefined : `${base.replace(/\/+$/, '')}/v1/traces`);
    return {
      tracesUrl,
      headers: v.OTEL_EXPORTER_OTLP_HEADERS,
      serviceName: v.OTEL_SERVICE_NAME,
      sampleRatio: v.OTEL_TRACES_SAMPLER_ARG,
    };
  },
});

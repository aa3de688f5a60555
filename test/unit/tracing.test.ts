import assert from 'node:assert/strict';
import * as otel from '@opentelemetry/api';
import { after, describe, test } from 'node:test';
import { ConfigError, readSettings } from '../../src/core/settings.ts';
import {
  contextFromTraceparent,
  currentTraceparent,
  setTracingEnabled,
  traceLogFields,
  withTraceHeaders,
} from '../../src/core/tracing.ts';
import { tracingSettings } from '../../src/core/tracing-settings.ts';

// The example of the W3C Trace Context recommendation (https://www.w3.org/TR/trace-context/#examples-of-http-traceparent-headers).
const EXAMPLE = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('trace context', () => {
  after(() => setTracingEnabled(undefined));

  test('off (the default): nothing is read or written', () => {
    setTracingEnabled(undefined);
    assert.equal(contextFromTraceparent(EXAMPLE), undefined);
    assert.equal(currentTraceparent(), undefined);
    const headers = { accept: 'application/json' };
    assert.equal(withTraceHeaders(headers), headers, 'the same object: nothing added');
    assert.deepEqual(traceLogFields(), {});
  });

  test('on: a traceparent read is the one written back', () => {
    setTracingEnabled(otel);
    const parent = contextFromTraceparent(EXAMPLE);
    assert.ok(parent);
    assert.equal(currentTraceparent(parent), EXAMPLE);
    // An unsampled parent stays unsampled.
    const unsampled = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00';
    assert.equal(currentTraceparent(contextFromTraceparent(unsampled)), unsampled);
    // Flags other than sampled are not carried on (version 00 defines only that one).
    assert.equal(
      currentTraceparent(contextFromTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03')),
      EXAMPLE,
    );
    // A later version may append fields; its first four are read.
    assert.equal(
      currentTraceparent(contextFromTraceparent(`cc${EXAMPLE.slice(2)}-what-the-future-holds`)),
      EXAMPLE,
    );
    // No active span: nothing to send.
    assert.equal(currentTraceparent(), undefined);
  });

  test('on: what the recommendation calls invalid is ignored (the request starts a trace of its own)', () => {
    setTracingEnabled(otel);
    for (const invalid of [
      `ff${EXAMPLE.slice(2)}`, // version ff is invalid
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01', // all-zero trace id
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01', // all-zero parent id
      `${EXAMPLE}-extra`, // version 00 has exactly four fields
      EXAMPLE.toUpperCase(), // lowercase hex only
      '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01', // a short trace id
      '',
      undefined,
      ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ])
      assert.equal(contextFromTraceparent(invalid), undefined, String(invalid));
  });
});

describe('tracing settings', () => {
  test('none set: off', () => {
    assert.equal(readSettings(tracingSettings, {}).tracesUrl, undefined);
  });

  test('the base endpoint gets /v1/traces; the traces endpoint is used as given', () => {
    assert.equal(
      readSettings(tracingSettings, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracesUrl,
      'http://collector:4318/v1/traces',
    );
    assert.equal(
      readSettings(tracingSettings, {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/ingest',
      }).tracesUrl,
      'https://traces.example/ingest',
    );
  });

  test('headers as the specification writes them: key=value pairs, values URL-encoded', () => {
    const settings = readSettings(tracingSettings, {
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20abc,x-scope=team%3Dops',
    });
    assert.deepEqual(settings.headers, { authorization: 'Bearer abc', 'x-scope': 'team=ops' });
  });

  test('bad values are named, all at once', () => {
    assert.throws(
      () =>
        readSettings(tracingSettings, {
          OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
          OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign',
          OTEL_TRACES_SAMPLER_ARG: '1.5',
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.problems.length, 3, error.message);
        assert.match(error.message, /OTEL_EXPORTER_OTLP_ENDPOINT/);
        assert.match(error.message, /OTEL_EXPORTER_OTLP_HEADERS/);
        assert.match(error.message, /OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/);
        return true;
      },
    );
  });
});

// Helpers for lab-report tests: multipart uploads, waiting for a session to finish, and checking
// parsed results against a generated report's truth (with a list of every mismatch).
import assert from 'node:assert/strict';
import type { TestDeveloper, TestService } from './app.ts';
import type { GeneratedReport, TruthRow } from './lab-report-samples.ts';
import type { VendorContract } from './vendor-contract.ts';
import { until } from './until.ts';

type Json = Record<string, unknown>;

export type ParsedResult = {
  source: {
    name?: string;
    value?: string;
    units?: string;
    flag?: string;
    reference_text?: string;
    panel?: string;
  };
  biomarker: { key: string | null; loinc_code?: string; panel_id?: number };
  measurement: {
    type: string;
    numeric?: number;
    bounded?: { operator: string; value: number };
    units?: string;
    ucum_code?: string;
    absent_reason?: string;
  };
  interpretation: { flag: string | null; source: string; flag_raw?: string };
  reference_ranges?: { lower?: number; upper?: number }[];
};

export function multipart(
  file: Buffer,
  options: { filename?: string; field?: string; extra?: Record<string, string> } = {},
) {
  const boundary = `----tributary${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(options.extra ?? {}))
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${options.field ?? 'file'}"; filename="${options.filename ?? 'report.bin'}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { payload: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Every answer goes through here: recorded against the vendor's documents when a contract is given. */
export async function api(
  service: TestService,
  developer: TestDeveloper,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  contract?: VendorContract,
  body?: { payload: Buffer; contentType: string },
) {
  const response = await service.app.inject({
    method,
    url,
    headers: { ...developer.headers, ...(body ? { 'content-type': body.contentType } : {}) },
    ...(body ? { payload: body.payload } : {}),
  });
  contract?.checkResponse({
    method,
    url,
    status: response.statusCode,
    contentType: response.headers['content-type'],
    body: response.body,
  });
  return response;
}

export async function upload(
  service: TestService,
  developer: TestDeveloper,
  file: Buffer,
  options: { filename?: string; referenceId?: string; contract?: VendorContract } = {},
): Promise<string> {
  const query = options.referenceId ? `?reference_id=${encodeURIComponent(options.referenceId)}` : '';
  const response = await api(
    service,
    developer,
    'POST',
    `/v2/lab-reports${query}`,
    options.contract,
    multipart(file, options),
  );
  assert.equal(response.statusCode, 202, response.body);
  const body = response.json() as { upload_id: string; current_status: string };
  assert.equal(body.current_status, 'processing');
  return body.upload_id;
}

/** Polls the list by upload id until its session left `processing` (bounded). */
export async function waitForSession(
  service: TestService,
  developer: TestDeveloper,
  uploadId: string,
  timeoutMs = 120_000,
): Promise<Json> {
  const sessions = await until(
    `upload ${uploadId} to leave processing`,
    async () => {
      const response = await api(service, developer, 'GET', `/v2/lab-reports?upload_id=${uploadId}`);
      return (response.json() as { sessions: Json[] }).sessions;
    },
    {
      done: (found) => found.length === 1 && found[0]!.current_status !== 'processing',
      intervalMs: 100,
      timeoutMs,
    },
  );
  return sessions[0]!;
}

/** Every way the parsed results differ from the truth; an empty list when they match exactly. */
export function mismatches(truth: readonly TruthRow[], results: readonly ParsedResult[]): string[] {
  const problems: string[] = [];
  const byKey = new Map<string, ParsedResult[]>();
  for (const result of results) {
    const key = result.biomarker.key ?? `(unmatched: ${result.source.name})`;
    byKey.set(key, [...(byKey.get(key) ?? []), result]);
  }
  for (const row of truth) {
    const found = byKey.get(row.key);
    if (!found) {
      problems.push(`${row.key}: not found`);
      continue;
    }
    byKey.delete(row.key);
    const [result] = found;
    const where = `${row.key} (${row.name})`;
    const expect = (what: string, actual: unknown, expected: unknown) => {
      if (JSON.stringify(actual) !== JSON.stringify(expected))
        problems.push(
          `${where} ${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`,
        );
    };
    expect('source.value', result!.source.value, row.value);
    if (row.numeric !== undefined) {
      expect('measurement.type', result!.measurement.type, 'numeric');
      expect('measurement.numeric', result!.measurement.numeric, row.numeric);
    } else {
      expect('measurement.type', result!.measurement.type, 'bounded');
      expect('measurement.bounded', result!.measurement.bounded, row.bounded);
    }
    expect('measurement.units', result!.measurement.units, row.units);
    expect('measurement.ucum_code', result!.measurement.ucum_code, row.ucum);
    expect('biomarker.loinc_code', result!.biomarker.loinc_code, row.loinc);
    expect('reference range', result!.reference_ranges?.[0], {
      ...(row.lower === undefined ? {} : { lower: row.lower }),
      ...(row.upper === undefined ? {} : { upper: row.upper }),
      type: 'normal',
    });
    expect('source.reference_text', result!.source.reference_text, row.range);
    expect('interpretation.flag', result!.interpretation.flag, row.flag);
    expect('interpretation.source', result!.interpretation.source, row.flagSource);
    if (row.printedFlag) expect('interpretation.flag_raw', result!.interpretation.flag_raw, row.printedFlag);
  }
  for (const [key] of byKey) problems.push(`${key}: parsed but not printed`);
  return problems;
}

/** The report-level facts printed on a generated report. */
export function metadataMismatches(report: GeneratedReport, session: Json): string[] {
  const expected: Json = {
    report_date: report.reportDate,
    report_time: '14:02',
    collection_date: report.collectionDate,
    collection_time: '08:15',
    lab_name: report.labName,
    patient_sex: report.patientSex,
    patient_age_at_collection: report.patientAge,
    report_locale: report.options.system === 'US' ? 'en-US' : 'en-GB',
  };
  return Object.entries(expected)
    .filter(([key, value]) => session[key] !== value)
    .map(([key, value]) => `${key}: got ${JSON.stringify(session[key])}, expected ${JSON.stringify(value)}`);
}

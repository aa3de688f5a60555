// The mapping table in docs/fhir.md is the one in codes.ts, row for row; and the mapping keeps a
// record's own offsets and ids stable.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { METRICS } from '../../src/features/fhir-export/codes.ts';
import { fhirDateTime, mapRecord } from '../../src/features/fhir-export/map-records.ts';

test('docs/fhir.md lists every code of codes.ts with its system, display and unit, and nothing else', () => {
  const doc = readFileSync(new URL('../../docs/fhir.md', import.meta.url), 'utf8');
  const rows = [
    ...doc.matchAll(
      /^\| ([a-z_0-9]+) \| (LOINC|Tributary) \| `([^`]+)` \| (.+?) \| (`[^`]+`|—) \| ([a-z-]+|—) \|$/gm,
    ),
  ];
  const documented = new Map(rows.map((row) => [row[1]!, row.slice(2)]));
  for (const [name, metric] of Object.entries(METRICS)) {
    assert.deepEqual(
      documented.get(name),
      [
        metric.system === 'loinc' ? 'LOINC' : 'Tributary',
        metric.code,
        metric.display,
        metric.ucum ? `\`${metric.ucum}\`` : '—',
        metric.category ?? '—',
      ],
      name,
    );
  }
  assert.equal(documented.size, Object.keys(METRICS).length, 'no row for a code the mapping does not write');
});

test('a day keeps its offset; a time FHIR cannot carry is written in UTC; ids are stable', () => {
  assert.equal(fhirDateTime('2025-03-01T00:00:00.000000+05:45'), '2025-03-01T00:00:00.000000+05:45');
  assert.equal(fhirDateTime('2025-03-01T00:00:00+15:00'), '2025-02-28T09:00:00.000Z');
  assert.equal(fhirDateTime('not a time'), null);
  const owner = { userId: '8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41', provider: 'OURA', referenceId: null };
  const record = {
    metadata: { start_time: '2025-03-01T00:00:00-08:00', end_time: '2025-03-02T00:00:00-08:00' },
    distance_data: { steps: 1200 },
  };
  const once = mapRecord(owner, 'daily', 'k', record, '2025-03-02T08:00:00Z');
  const twice = mapRecord(owner, 'daily', 'k', record, '2025-03-02T08:00:00Z');
  assert.deepEqual(once, twice);
  assert.equal(once.observations.length, 1);
  assert.deepEqual(once.observations[0]!.effectivePeriod, {
    start: '2025-03-01T00:00:00-08:00',
    end: '2025-03-02T00:00:00-08:00',
  });
  assert.deepEqual(once.observations[0]!.valueQuantity, {
    value: 1200,
    unit: 'steps/day',
    system: 'http://unitsofmeasure.org',
    code: '/d',
  });
  assert.equal(once.devices.length, 0, 'no device_data, no Device');
  assert.match(JSON.stringify(once.provenance?.agent), /through provider OURA/);
  // A record with nothing mappable gives nothing, not an empty Provenance.
  assert.deepEqual(mapRecord(owner, 'daily', 'k', { metadata: record.metadata }, 'x'), {
    observations: [],
    devices: [],
    provenance: null,
  });
});

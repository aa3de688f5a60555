// FHIR reads end to end: a SANDBOX user with every data type synced through the ordinary data
// reads, then `$everything` paged to the end and Observation searches, every resource checked
// against the official FHIR R4 JSON schema (test/helpers/fhir-schema.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EXPORTED_TYPES } from '../../src/features/fhir-export/map-records.ts';
import { addDays } from '../../src/model/time.ts';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { connectSandboxUser } from '../helpers/connections.ts';
import { fhirErrors } from '../helpers/fhir-schema.ts';
import { until } from '../helpers/until.ts';
import { missingOmh, omhValidator } from '../helpers/omh-schema.ts';
import { OMH_SCHEMAS } from '../../src/features/fhir-export/omh.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- FHIR JSON, asserted field by field
type Wire = Record<string, any>;

const FROM = '2025-03-01';
const TO = '2025-03-15';

describe('FHIR reads of a SANDBOX user with every data type', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let other: TestDeveloper;
  let userId: string;

  // System time moved forward by `skewMs` (to see links and retention expire); no waiting.
  let skewMs = 0;
  const clock = { now: () => new Date(Date.now() + skewMs) };

  before(async () => {
    service = await startTestService({ env: { SANDBOX_ARRIVAL_MINUTES: 'off' }, clock });
    developer = await createDeveloper(service.ctx);
    other = await createDeveloper(service.ctx);
    ({ userId } = await connectSandboxUser(service.app, developer));
    // The ordinary reads sync the window from the SANDBOX provider; the FHIR reads serve the store.
    for (const type of EXPORTED_TYPES) {
      const response = await get(`/v3/connections/${userId}/${type}?start_date=${FROM}&end_date=${TO}`);
      assert.equal(response.statusCode, 200, response.body);
    }
  });
  after(async () => service?.close());

  const get = (url: string, who: TestDeveloper = developer, headers: Record<string, string> = {}) =>
    service.app.inject({ method: 'GET', url, headers: { ...who.headers, ...headers } });
  const bundleOf = async (url: string) => {
    const response = await get(url);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'application/fhir+json; charset=utf-8');
    return JSON.parse(response.body) as Wire;
  };
  const pathOf = (link: string) => link.replace('http://127.0.0.1:8080', '');

  /** Every page of a search, following next links to the end. */
  async function allPages(url: string) {
    const pages: Wire[] = [];
    let next: string | undefined = url;
    while (next) {
      const page = await bundleOf(next);
      pages.push(page);
      const link = (page['link'] as Wire[]).find((each) => each['relation'] === 'next');
      next = link ? pathOf(link['url'] as string) : undefined;
      assert.ok(pages.length < 500, 'paging ends');
    }
    return pages;
  }

  test('$everything: every page and every resource valid against the FHIR R4 schema, every data type present', async () => {
    const pages = await allPages(`/v2/fhir/Patient/${userId}/$everything?_count=250`);
    assert.ok(pages.length > 1, 'more than one page');
    const resources = pages.flatMap((page) =>
      (page['entry'] as Wire[]).map((entry) => entry['resource'] as Wire),
    );
    for (const page of pages) {
      assert.equal(fhirErrors(page), null, 'the bundle itself');
    }
    const invalid = resources.flatMap((resource) => {
      const errors = fhirErrors(resource);
      return errors ? [`${resource['resourceType']}/${resource['id']}: ${errors}`] : [];
    });
    assert.deepEqual(invalid.slice(0, 5), []);
    const patients = resources.filter((resource) => resource['resourceType'] === 'Patient');
    assert.equal(patients.length, 1, 'the Patient once, on the first page');
    assert.equal(patients[0]!['id'], userId);
    const observations = resources.filter((resource) => resource['resourceType'] === 'Observation');
    const ids = observations.map((observation) => observation['id'] as string);
    assert.equal(new Set(ids).size, ids.length, 'no Observation on two pages');
    // Every data type the export maps gave Observations.
    const typesSeen = new Set(
      observations.map((observation) => String(observation['identifier'][0]['value']).split('/')[0]),
    );
    assert.deepEqual([...typesSeen].sort(), [...EXPORTED_TYPES].sort());
    // Devices are referenced by Observations and given; Provenances name the connection and provider.
    const devices = new Set(
      resources
        .filter((resource) => resource['resourceType'] === 'Device')
        .map((device) => `Device/${device['id']}`),
    );
    const referenced = new Set(
      observations.flatMap((observation) =>
        observation['device'] ? [observation['device']['reference']] : [],
      ),
    );
    assert.ok(referenced.size > 0, 'observations name their device');
    for (const reference of referenced) assert.ok(devices.has(reference), `${reference} is in the bundle`);
    const provenance = resources.find((resource) => resource['resourceType'] === 'Provenance')!;
    assert.match(
      JSON.stringify(provenance['agent']),
      new RegExp(`connection ${userId} through provider SANDBOX`),
    );
    // A day keeps its local offset: the SANDBOX user's days run midnight to midnight in its zone.
    const steps = observations.find((observation) => observation['code']['coding'][0]['code'] === '41950-7')!;
    assert.match(
      steps['effectivePeriod']['start'],
      /^\d{4}-\d{2}-\d{2}T00:00:00(\.\d+)?([+-]\d{2}:\d{2}|Z)$/,
    );
    assert.equal(steps['valueQuantity']['system'], 'http://unitsofmeasure.org');
    // Blood pressure is a panel with systolic and diastolic components.
    const pressure = observations.find(
      (observation) => observation['code']['coding'][0]['code'] === '85354-9',
    );
    assert.ok(pressure, 'a blood pressure panel');
    assert.deepEqual(
      (pressure['component'] as Wire[]).map((component) => component['code']['coding'][0]['code']),
      ['8480-6', '8462-4'],
    );
  });

  test('Observation search: date range, code, _count with next links, and the includes', async () => {
    const url =
      `/v2/fhir/Observation?subject=Patient/${userId}&date=ge${FROM}&date=lt${addDays(FROM, 7)}` +
      `&code=http://loinc.org|41950-7&_count=3&_include=Observation:device&_revinclude=Provenance:target`;
    const pages = await allPages(url);
    const matches = pages.flatMap((page) =>
      (page['entry'] as Wire[])
        .filter((entry) => entry['search']['mode'] === 'match')
        .map((entry) => entry['resource']),
    );
    assert.equal(matches.length, 7, 'one day-steps Observation per day of the week');
    assert.ok(matches.every((observation: Wire) => observation['code']['coding'][0]['code'] === '41950-7'));
    assert.equal(pages.length, 3, '3 + 3 + 1');
    const included = (pages[0]!['entry'] as Wire[]).filter((entry) => entry['search']['mode'] === 'include');
    assert.ok(included.some((entry) => entry['resource']['resourceType'] === 'Device'));
    assert.ok(included.some((entry) => entry['resource']['resourceType'] === 'Provenance'));
    for (const page of pages) assert.equal(fhirErrors(page), null);
    // A search with no match is an empty searchset, not an error.
    const none = await bundleOf(
      `/v2/fhir/Observation?subject=Patient/${userId}&date=ge2020-01-01&date=lt2020-01-02`,
    );
    assert.deepEqual(none['entry'], []);
  });

  test('a user of another developer is a 404, bad parameters a 400 naming them', async () => {
    const foreign = await get(`/v2/fhir/Patient/${userId}/$everything`, other);
    assert.equal(foreign.statusCode, 404);
    assert.match(problemOf(foreign).contentType, /^application\/problem\+json/);
    const search = await get(`/v2/fhir/Observation?subject=Patient/${userId}`, other);
    assert.equal(search.statusCode, 404);
    const cases: [string, RegExp][] = [
      ['/v2/fhir/Observation', /invalid subject: required/],
      ['/v2/fhir/Observation?subject=Group/1', /invalid subject: expected Patient\/\{user_id\}/],
      [`/v2/fhir/Observation?subject=Patient/${userId}&date=2025-13-01`, /invalid date/],
      [
        `/v2/fhir/Observation?subject=Patient/${userId}&date=ge2025-01-01&date=gt2025-01-02`,
        /invalid date: more than one lower bound/,
      ],
      [
        `/v2/fhir/Observation?subject=Patient/${userId}&date=ge2025-02-01&date=le2025-01-01`,
        /invalid date: the upper bound/,
      ],
      [
        `/v2/fhir/Observation?subject=Patient/${userId}&code=http://snomed.info/sct|1`,
        /invalid code: unknown code system/,
      ],
      [`/v2/fhir/Observation?subject=Patient/${userId}&code=99999-9`, /invalid code: 99999-9 is not a code/],
      [`/v2/fhir/Observation?subject=Patient/${userId}&_count=0`, /invalid _count/],
      [`/v2/fhir/Observation?subject=Patient/${userId}&_cursor=nope`, /invalid _cursor/],
      [
        `/v2/fhir/Observation?subject=Patient/${userId}&colour=red`,
        /invalid colour: unknown search parameter/,
      ],
      [`/v2/fhir/Patient/${userId}/$everything?start=yesterday`, /invalid start: expected YYYY-MM-DD/],
      [`/v2/fhir/Patient/${userId}/$everything?_since=2025-01-01`, /invalid _since/],
      ['/v2/fhir/Patient/not-a-uuid/$everything', /invalid user_id/],
    ];
    for (const [url, detail] of cases) {
      const response = await get(url);
      assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
      assert.match(problemOf(response).body.detail, detail, url);
    }
  });

  test('a client that accepts only application/fhir+json gets errors as an OperationOutcome (same status)', async () => {
    const fhirOnly = { accept: 'application/fhir+json' };
    const bad = await get(`/v2/fhir/Observation?subject=Patient/${userId}&_count=0`, developer, fhirOnly);
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.headers['content-type'], 'application/fhir+json; charset=utf-8');
    const outcome = JSON.parse(bad.body) as Wire;
    assert.equal(fhirErrors(outcome), null);
    assert.equal(outcome['issue'][0]['code'], 'invalid');
    assert.match(outcome['issue'][0]['diagnostics'], /invalid _count/);
    const missing = await get(`/v2/fhir/Patient/${userId}/$everything`, other, fhirOnly);
    assert.equal(missing.statusCode, 404);
    assert.equal((JSON.parse(missing.body) as Wire)['issue'][0]['code'], 'not-found');
    const anonymous = await service.app.inject({
      method: 'GET',
      url: `/v2/fhir/Patient/${userId}/$everything`,
      headers: fhirOnly,
    });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(fhirErrors(JSON.parse(anonymous.body)), null, anonymous.body);
    // Both accepted, or neither: problem+json, the service's one error format.
    const both = await get(`/v2/fhir/Observation?subject=Patient/${userId}&_count=0`, developer, {
      accept: 'application/fhir+json, application/problem+json',
    });
    assert.match(String(both.headers['content-type']), /^application\/problem\+json/);
  });

  test('$everything with _since: only what was stored since', async () => {
    const later = new Date(Date.now() + 60_000).toISOString();
    const page = await bundleOf(`/v2/fhir/Patient/${userId}/$everything?_since=${later}`);
    assert.deepEqual(
      (page['entry'] as Wire[]).map((entry) => entry['resource']['resourceType']),
      ['Patient'],
    );
  });

  describe('bulk export', () => {
    const kickOff = (url: string, headers: Record<string, string> = { prefer: 'respond-async' }) =>
      get(url, developer, { accept: 'application/fhir+json, application/problem+json', ...headers });
    const statusPath = (response: { headers: Record<string, unknown> }) =>
      pathOf(String(response.headers['content-location']));

    async function manifestOf(path: string) {
      const done = await until<Wire | null>(
        'the export to complete',
        async () => {
          const response = await get(path);
          if (response.statusCode === 202) {
            assert.match(String(response.headers['x-progress']), /^\d+ of \d+ users exported$/);
            return null;
          }
          assert.equal(response.statusCode, 200, response.body);
          return JSON.parse(response.body) as Wire;
        },
        { timeoutMs: 120_000, betweenReads: () => service.ctx.jobs.wake('fhir-export.unit') },
      );
      return done!;
    }

    test('per user: 202 + Content-Location, then a manifest of NDJSON files, each valid FHIR and listed once', async () => {
      const started = await kickOff(`/v2/fhir/Patient/${userId}/$export`);
      assert.equal(started.statusCode, 202, started.body);
      assert.match(
        String(started.headers['content-location']),
        /\/v2\/fhir\/\$export-status\/exp_[0-9a-f]+$/,
      );
      assert.equal(fhirErrors(JSON.parse(started.body)), null, 'the kick-off answers an OperationOutcome');
      const manifest = await manifestOf(statusPath(started));
      assert.equal(manifest['requiresAccessToken'], false);
      const outputs = manifest['output'] as Wire[];
      assert.deepEqual(outputs.map((output) => output['type']).sort(), [
        'Device',
        'Observation',
        'Patient',
        'Provenance',
      ]);
      assert.equal(new Set(outputs.map((output) => output['url'])).size, outputs.length, 'each file once');
      let observations = 0;
      for (const output of outputs) {
        const file = await service.app.inject({ method: 'GET', url: pathOf(output['url'] as string) });
        assert.equal(file.statusCode, 200, file.body);
        assert.equal(file.headers['content-type'], 'application/fhir+ndjson');
        const lines = file.body
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as Wire);
        assert.equal(lines.length, output['count']);
        const ids = lines.map((line) => line['id']);
        assert.equal(new Set(ids).size, ids.length, `${output['type']}: no resource twice`);
        for (const line of lines) {
          assert.equal(line['resourceType'], output['type']);
          const errors = fhirErrors(line);
          assert.equal(errors, null, `${output['type']}/${line['id']}: ${errors}`);
        }
        if (output['type'] === 'Observation') observations = lines.length;
      }
      // The same Observations as $everything serves.
      const pages = await allPages(`/v2/fhir/Patient/${userId}/$everything?_count=1000`);
      const served = pages.flatMap((page) =>
        (page['entry'] as Wire[]).filter((entry) => entry['resource']['resourceType'] === 'Observation'),
      );
      assert.equal(observations, served.length);
      // A tampered link is a 403; an expired one a 410.
      const url = new URL(outputs[0]!['url'] as string);
      const signature = url.searchParams.get('signature')!;
      url.searchParams.set('signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`);
      const tampered = await service.app.inject({ method: 'GET', url: pathOf(url.toString()) });
      assert.equal(tampered.statusCode, 403, tampered.body);
      skewMs = 2 * 3_600_000;
      try {
        const expired = await service.app.inject({
          method: 'GET',
          url: pathOf(outputs[0]!['url'] as string),
        });
        assert.equal(expired.statusCode, 410, expired.body);
        // Fresh links from a new poll work.
        const fresh = (await manifestOf(statusPath(started)))['output'] as Wire[];
        const again = await service.app.inject({ method: 'GET', url: pathOf(fresh[0]!['url'] as string) });
        assert.equal(again.statusCode, 200);
        // Past the retention (24 h) the export is gone and the prune job deletes it.
        skewMs = 25 * 3_600_000;
        assert.equal((await get(statusPath(started))).statusCode, 404);
        assert.equal(await service.ctx.fhir.export.prune(), 1);
      } finally {
        skewMs = 0;
      }
    });

    test('all users, _type and _since; DELETE cancels; the kick-off needs Prefer: respond-async', async () => {
      const refused = await kickOff('/v2/fhir/$export', {});
      assert.equal(refused.statusCode, 400);
      assert.match(problemOf(refused).body.detail, /invalid Prefer: the header must say respond-async/);
      for (const [query, detail] of [
        ['_type=Encounter', /invalid _type: Encounter is not exported/],
        ['_since=yesterday', /invalid _since/],
        ['_outputFormat=text/csv', /invalid _outputFormat/],
        ['_elements=id', /invalid _elements: unknown parameter/],
      ] as const) {
        const response = await kickOff(`/v2/fhir/$export?${query}`);
        assert.equal(response.statusCode, 400, query);
        assert.match(problemOf(response).body.detail, detail);
      }
      assert.equal(
        (await get(`/v2/fhir/Patient/${userId}/$export`, other, { prefer: 'respond-async' })).statusCode,
        404,
      );

      const started = await kickOff('/v2/fhir/$export?_type=Patient,Device');
      const manifest = await manifestOf(statusPath(started));
      assert.deepEqual((manifest['output'] as Wire[]).map((output) => output['type']).sort(), [
        'Device',
        'Patient',
      ]);
      const since = await kickOff(
        `/v2/fhir/$export?_since=${new Date(Date.now() + 60_000).toISOString()}&_type=Observation`,
      );
      assert.deepEqual((await manifestOf(statusPath(since)))['output'], []);

      const cancelled = await kickOff('/v2/fhir/$export');
      const deleted = await service.app.inject({
        method: 'DELETE',
        url: statusPath(cancelled),
        headers: developer.headers,
      });
      assert.equal(deleted.statusCode, 202, deleted.body);
      assert.equal((await get(statusPath(cancelled))).statusCode, 404);
      // Another developer cannot see or cancel an export.
      assert.equal((await get(statusPath(started), other)).statusCode, 404);
    });

    test(
      'Open mHealth output: every data point valid against its schema (the Open mHealth library)',
      { skip: missingOmh() },
      async () => {
        const started = await kickOff(
          `/v2/fhir/Patient/${userId}/$export?_outputFormat=application/vnd.openmhealth%2Bndjson`,
        );
        assert.equal(started.statusCode, 202, started.body);
        const manifest = await manifestOf(statusPath(started));
        const outputs = manifest['output'] as Wire[];
        assert.deepEqual(
          outputs.map((output) => output['type']).sort(),
          Object.keys(OMH_SCHEMAS).sort(),
          'every schema written',
        );
        const envelope = omhValidator('data-point', '1.0');
        for (const output of outputs) {
          const schema = output['type'] as keyof typeof OMH_SCHEMAS;
          const validate = omhValidator(schema, OMH_SCHEMAS[schema]);
          const file = await service.app.inject({ method: 'GET', url: pathOf(output['url'] as string) });
          assert.equal(file.statusCode, 200);
          const points = file.body
            .trimEnd()
            .split('\n')
            .map((line) => JSON.parse(line) as Wire);
          assert.equal(points.length, output['count']);
          for (const point of points) {
            assert.ok(envelope(point), `${schema} envelope: ${JSON.stringify(envelope.errors)}`);
            assert.deepEqual(point['header']['schema_id'], {
              namespace: 'omh',
              name: schema,
              version: OMH_SCHEMAS[schema],
            });
            assert.ok(
              validate(point['body']),
              `${schema}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(point['body'])}`,
            );
          }
        }
        // The validator refuses what the schema refuses (a step count in the wrong unit).
        const steps = omhValidator('step-count', OMH_SCHEMAS['step-count']);
        assert.equal(
          steps({
            step_count: { value: 1, unit: 'paces' },
            effective_time_frame: { date_time: '2025-01-01T00:00:00Z' },
          }),
          false,
        );
        const refused = await kickOff(`/v2/fhir/$export?_outputFormat=openmhealth&_type=Observation`);
        assert.equal(refused.statusCode, 400);
        assert.match(problemOf(refused).body.detail, /invalid _type: Observation is not exported/);
      },
    );
  });
});

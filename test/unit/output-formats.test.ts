// The output formats applied to real-shaped events: each data type's event built the way the data
// feature builds it (buildDataEvent) from the sandbox's records, athlete, planned-workout and
// connection events. FHIR bundles are checked against the official R4 JSON schema, and their
// resources against the FHIR export's own mapping (the same record gives the same resources).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildAuthSuccessEvent } from '../../src/features/connecting/events.ts';
import { buildAthleteEvent, buildDataEvent, type DataEventType } from '../../src/features/data/events.ts';
import { type ExportedType, mapRecord } from '../../src/features/fhir-export/map-records.ts';
import {
  EVENT_ID_SYSTEM,
  EVENT_TYPE_SYSTEM,
  type EventBundle,
  toFhirBundle,
} from '../../src/features/output-formats/fhir-bundle.ts';
import { formatEvent } from '../../src/features/output-formats/format-event.ts';
import { FALLBACK_HEADER, FORMAT_HEADER } from '../../src/features/output-formats/formats.ts';
import { identityKeyOf, type DataTypeName, type DataTypeRecords } from '../../src/model/index.ts';
import { generate, generateAthlete } from '../../src/providers/sandbox/generate.ts';
import { fhirErrors } from '../helpers/fhir-schema.ts';

const USER = {
  user_id: '3f0d2a7e-8c41-4d2b-9a55-1b7e6c0f9d12',
  provider: 'SANDBOX',
  reference_id: 'customer-77',
  scopes: 'activity,daily,sleep',
  active: true,
  created_at: '2025-01-01T00:00:00.000Z',
};
const CREATED = new Date('2025-02-20T08:00:00.000Z');

function eventOf(id: string, payload: { type: string }) {
  return { id, type: payload.type, createdAt: CREATED, body: JSON.stringify(payload) };
}

/** A few records of `type` from the sandbox (a month, so every kind of day is there). */
function recordsOf<T extends DataTypeName>(type: T, count = 3): DataTypeRecords[T][] {
  const all = generate(type, { seed: USER.user_id, startDate: '2025-01-01', endDate: '2025-02-15' });
  return all.slice(0, count);
}

function bundleOf(event: ReturnType<typeof eventOf>): EventBundle {
  const bundle = toFhirBundle(event);
  assert.ok(bundle, `${event.type} has a FHIR form`);
  return bundle;
}

const MAPPED: (DataEventType & ExportedType)[] = [
  'activity',
  'body',
  'daily',
  'hormone',
  'menstruation',
  'nutrition',
  'sleep',
];

describe('fhir: data events become a Bundle of the export mapping', () => {
  for (const type of MAPPED) {
    test(`${type}`, () => {
      const records = recordsOf(type);
      assert.ok(records.length > 0, `the sandbox gives ${type} records`);
      const payload = buildDataEvent(type, { user: USER, data: records as never, reference: 'ref-1' });
      const event = eventOf(`evt-${type}`, payload);
      const bundle = bundleOf(event);

      assert.equal(bundle.resourceType, 'Bundle');
      assert.equal(bundle.type, 'collection');
      assert.deepEqual(bundle.identifier, { system: EVENT_ID_SYSTEM, value: event.id });
      assert.deepEqual(bundle.meta.tag, [{ system: EVENT_TYPE_SYSTEM, code: type }]);
      assert.equal(fhirErrors(bundle), null, 'valid against the R4 schema');

      const resources = bundle.entry.map((entry) => entry.resource);
      const [patient] = resources;
      assert.equal(patient?.resourceType, 'Patient');
      assert.equal(patient.id, USER.user_id);
      assert.deepEqual(
        'identifier' in patient ? patient.identifier.map((identifier) => identifier.value) : [],
        [USER.user_id, USER.reference_id],
      );

      const observations = resources.filter((resource) => resource.resourceType === 'Observation');
      assert.ok(observations.length > 0, `${type} records give observations`);
      for (const observation of observations) {
        assert.equal(observation.subject.reference, `Patient/${USER.user_id}`);
        assert.ok((observation.code.coding ?? []).every((coding) => coding.system && coding.code));
        if (observation.device) {
          const deviceId = observation.device.reference?.replace('Device/', '');
          assert.ok(
            resources.some((resource) => resource.resourceType === 'Device' && resource.id === deviceId),
            'the device an observation names is in the bundle',
          );
        }
      }
      // The very resources the FHIR export gives for these records.
      const owner = { userId: USER.user_id, provider: USER.provider, referenceId: USER.reference_id };
      const expected = records.flatMap((record) => {
        const key = identityKeyOf(type, record as never);
        assert.ok(key);
        return mapRecord(owner, type, key, record as never, CREATED.toISOString()).observations;
      });
      assert.deepEqual(observations, expected);
      const provenances = resources.filter((resource) => resource.resourceType === 'Provenance');
      assert.ok(provenances.length > 0 && provenances.length <= records.length);
      // Every id once: a collection may not hold one resource twice.
      const ids = resources.map((resource) => `${resource.resourceType}/${resource.id}`);
      assert.equal(new Set(ids).size, ids.length);
    });
  }

  test('a redelivery of the same event is byte for byte the same bundle', () => {
    const payload = buildDataEvent('daily', { user: USER, data: recordsOf('daily') as never });
    const event = eventOf('evt-again', payload);
    assert.equal(JSON.stringify(toFhirBundle(event)), JSON.stringify(toFhirBundle({ ...event })));
  });
});

test('fhir: the athlete event is the Patient with name, gender and birth date', () => {
  const athlete = generateAthlete(USER.user_id, '2025-02-20');
  const payload = buildAthleteEvent({ user: USER, athlete: athlete as never });
  const bundle = bundleOf(eventOf('evt-athlete', payload));
  assert.equal(fhirErrors(bundle), null);
  assert.equal(bundle.entry.length, 1);
  const patient = bundle.entry[0]!.resource;
  assert.equal(patient.resourceType, 'Patient');
  assert.ok(patient.resourceType === 'Patient');
  assert.equal(patient.id, USER.user_id);
  if (athlete.last_name) assert.equal(patient.name?.[0]?.family, athlete.last_name);
  if (athlete.date_of_birth) assert.equal(patient.birthDate, athlete.date_of_birth.slice(0, 10));
  assert.ok(['male', 'female', 'other', 'unknown', undefined].includes(patient.gender));
});

describe('formatEvent', () => {
  const activity = buildDataEvent('activity', { user: USER, data: recordsOf('activity', 1) as never });
  const activityEvent = eventOf('evt-a', activity);

  test('json sends the stored body as it is', async () => {
    const out = await formatEvent('json', activityEvent);
    assert.equal(out.body, activityEvent.body);
    assert.equal(out.contentType, 'application/json');
    assert.equal(out.headers[FORMAT_HEADER], 'json');
    assert.equal(out.headers[FALLBACK_HEADER], undefined);
  });

  test('fhir sends a Bundle as application/fhir+json', async () => {
    const out = await formatEvent('fhir', activityEvent);
    assert.equal(out.contentType, 'application/fhir+json');
    assert.equal(out.headers['content-type'], 'application/fhir+json');
    assert.equal(out.headers[FORMAT_HEADER], 'fhir');
    assert.equal((JSON.parse(String(out.body)) as EventBundle).resourceType, 'Bundle');
  });

  test('fhir: events without a FHIR form go as JSON, saying why', async () => {
    const planned = buildDataEvent('plannedWorkout', {
      user: USER,
      data: [{ metadata: { id: 'p1', name: 'Intervals', type: 'RUNNING' }, steps: [] }],
    });
    for (const payload of [planned, buildAuthSuccessEvent(USER)]) {
      const event = eventOf(`evt-${payload.type}`, payload);
      assert.equal(toFhirBundle(event), null);
      const out = await formatEvent('fhir', event);
      assert.equal(out.body, event.body);
      assert.equal(out.contentType, 'application/json');
      assert.equal(out.headers[FORMAT_HEADER], 'json');
      assert.equal(out.headers[FALLBACK_HEADER], 'no-fhir-form');
    }
  });

  test('fhir: a payload that is not one this service writes goes as JSON', async () => {
    const out = await formatEvent('fhir', {
      id: 'x',
      type: 'daily',
      createdAt: CREATED,
      body: '{"type":"daily"}',
    });
    assert.equal(out.headers[FALLBACK_HEADER], 'no-fhir-form');
    assert.equal(out.body, '{"type":"daily"}');
  });

  test('fit: the original file where one is kept, JSON (saying why) otherwise', async () => {
    const fit = Uint8Array.from([14, 16, 0x6c, 0x08, 0, 0, 0, 0, 0x2e, 0x46, 0x49, 0x54, 0, 0]);
    const kept = async (_event: unknown, payload: unknown) =>
      (payload as { data: { metadata: { summary_id: string } }[] }).data[0]!.metadata.summary_id ===
      activity.data[0]!['metadata']!['summary_id' as never]
        ? fit
        : null;
    const withFile = await formatEvent('fit', activityEvent, kept);
    assert.equal(withFile.body, fit);
    assert.equal(withFile.contentType, 'application/vnd.ant.fit');
    assert.equal(withFile.headers[FORMAT_HEADER], 'fit');

    const none = await formatEvent('fit', activityEvent);
    assert.equal(none.body, activityEvent.body);
    assert.equal(none.headers[FALLBACK_HEADER], 'no-original-fit-file');

    const two = buildDataEvent('activity', { user: USER, data: recordsOf('activity', 2) as never });
    assert.equal(two.data.length, 2);
    const many = await formatEvent('fit', eventOf('evt-two', two), kept);
    assert.equal(many.headers[FALLBACK_HEADER], 'not-one-activity');

    const daily = eventOf(
      'evt-d',
      buildDataEvent('daily', { user: USER, data: recordsOf('daily', 1) as never }),
    );
    assert.equal((await formatEvent('fit', daily, kept)).headers[FALLBACK_HEADER], 'no-fit-form');
  });
});

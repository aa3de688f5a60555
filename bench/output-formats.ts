/**
 * The cost the `fhir` output format adds to a delivery: events shaped as the data feature sends
 * them (sandbox records, ten per event as in a large request's chunks, with samples as the
 * webhook sends them), each turned into its FHIR Bundle and serialized, as the delivery engine's
 * formatter does per attempt. Prints events/s and µs per event for each data type, and the body
 * sizes before and after. The `json` format adds nothing (the stored body is sent as it is).
 *
 *   node_modules/.bin/node bench/output-formats.ts [runs]
 */
import { buildDataEvent, type DataEventType } from '../src/features/data/events.ts';
import { formatEvent } from '../src/features/output-formats/format-event.ts';
import { generate } from '../src/providers/sandbox/generate.ts';
import { reportFigures } from './figures.ts';

const runs = Number(process.argv[2] ?? 5);
const TYPES: DataEventType[] = ['activity', 'daily', 'sleep', 'body', 'nutrition'];
const EVENTS = 200;
const user = { user_id: '5d7e0c2a-9b14-4f3e-8a61-2c4d6e8f0a1b', provider: 'SANDBOX', reference_id: 'bench' };

const figures: Record<string, number> = {};
for (const type of TYPES) {
  const records = generate(type, {
    seed: user.user_id,
    startDate: '2025-01-01',
    endDate: '2025-01-11',
    withSamples: true,
  }).slice(0, 10);
  const body = JSON.stringify(buildDataEvent(type, { user, data: records as never }));
  const event = {
    id: 'evt-bench',
    type: buildDataEvent(type, { user, data: [] }).type,
    createdAt: new Date(),
    body,
  };
  let best = Infinity;
  let outBytes = 0;
  for (let run = 0; run < runs; run++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < EVENTS; i++) {
      const out = await formatEvent('fhir', { ...event, id: `evt-${i}` });
      outBytes = Buffer.byteLength(out.body);
    }
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e6);
  }
  const perEventUs = (best * 1000) / EVENTS;
  console.log(
    `${type.padEnd(10)} ${records.length} records/event  json ${String(Buffer.byteLength(body)).padStart(8)} B  ` +
      `fhir ${String(outBytes).padStart(8)} B  ${perEventUs.toFixed(0).padStart(6)} µs/event  ${Math.round(1e6 / perEventUs)} events/s`,
  );
  figures[`fhir_${type}_us_per_event`] = Math.round(perEventUs);
}
reportFigures(figures);

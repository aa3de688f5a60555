// Route schemas of the merged view: person reads and the merge settings. Records are the model's
// (by `$id`) plus a `provenance` object; the OpenAPI document describes both.
import Type from 'typebox';
import { dataTypes } from '../../model/index.ts';
import { DEVICE_KINDS } from '../../provider-kit/types.ts';
import { Connection, EndDate, modelRef, StartDate, ToWebhook, WithSamples } from '../data/schemas.ts';
import { DATA_SENT_MESSAGE } from '../data/reads.ts';
import { MERGED_TYPES } from './engine/merge-records.ts';
import { RULES } from './engine/provenance.ts';
import { MERGE_FAMILIES } from './engine/sources.ts';
import { MAX_ENTRIES } from './priorities.ts';
import { exampleProviderId } from '../../provider-access/example-ids.ts';

const Rule = Type.Union(
  Object.values(RULES).map((rule) => Type.Literal(rule)),
  {
    description:
      'slices: summed time slices; priority: the best-ranked record; best_for_field: the best source that has the field; all_points: every source’s points',
  },
);

export const Provenance = Type.Object(
  {
    rule: Rule,
    lead: Type.Integer({ description: 'Index into sources of the record that leads' }),
    sources: Type.Array(
      Type.Object({
        connection_id: Type.String(),
        provider: Type.String(),
        device_kind: Type.String({ examples: ['ring'] }),
        device: Type.Union([Type.String(), Type.Null()]),
        record: Type.String({ description: 'Identity key of the stored record within its connection' }),
      }),
    ),
    alternatives: Type.Array(Type.Integer(), {
      description: 'Sources of the same session or day that did not lead',
    }),
    fields: Type.Record(Type.String(), Type.Object({ rule: Rule, sources: Type.Array(Type.Integer()) }), {
      description: 'Per field (dotted path): the sources it came from and the rule that chose them',
    }),
    samples: Type.Record(Type.String(), Type.Array(Type.Integer()), {
      description:
        'Sample arrays gathered from several sources: the source index of each sample, in order (empty without samples)',
    }),
  },
  { title: 'Provenance' },
);

export const PersonParams = Type.Object({
  reference_id: Type.String({
    minLength: 1,
    maxLength: 256,
    description: 'The developer’s own id for the person',
  }),
  type: Type.Union(
    MERGED_TYPES.map((name) => Type.Literal(name)),
    { description: 'The data type' },
  ),
});

export const PersonQuery = Type.Object({
  start_date: StartDate,
  end_date: Type.Optional(EndDate),
  to_webhook: Type.Optional(ToWebhook(false)),
  with_samples: Type.Optional(WithSamples),
});

export const Person = Type.Object(
  {
    reference_id: Type.String(),
    connections: Type.Array(Connection, { description: 'The person’s active connections, oldest first' }),
  },
  { title: 'Person' },
);

export const PersonResponse = Type.Union([
  Type.Object({
    person: Person,
    data: Type.Array(
      Type.Intersect([
        Type.Union(MERGED_TYPES.map((name) => modelRef(dataTypes[name].schema))),
        Type.Object({ provenance: Provenance }),
      ]),
    ),
    type: Type.String(),
  }),
  Type.Object(
    {
      status: Type.Literal('success'),
      type: Type.String(),
      reference: Type.String({ description: 'Carried by the merged event (service-reference header too)' }),
      message: Type.String({ examples: [DATA_SENT_MESSAGE] }),
      person: Person,
    },
    {
      title: 'MergedSentToWebhook',
      description: 'to_webhook=true: the records follow as one merged event with this reference',
    },
  ),
]);

const Order = Type.Array(Type.String(), {
  maxItems: MAX_ENTRIES,
  description: `Best first: provider ids (${exampleProviderId('watch')}) and device kinds (${DEVICE_KINDS.join(', ')})`,
});

export const MergeSettingsBody = Type.Object(
  {
    // A record, not an object of known keys: the service names an unknown family in its 400
    // (a schema with additionalProperties false would have it dropped silently instead).
    priorities: Type.Optional(
      Type.Record(Type.String(), Order, {
        description: `Per metric family (${MERGE_FAMILIES.join(', ')}), your own order; omitted families keep theirs, an empty list restores the default`,
      }),
    ),
    merged_events: Type.Optional(
      Type.Boolean({ description: 'Send a merged event when a person’s day changes' }),
    ),
  },
  {
    description: 'Unknown members are refused with 400, naming them',
    examples: [
      {
        priorities: { sleep: [exampleProviderId('ring'), 'watch'], cumulative: ['watch', 'phone'] },
        merged_events: true,
      },
    ],
  },
);

export const MergeSettingsResponse = Type.Object(
  {
    priorities: Type.Record(Type.String(), Type.Array(Type.String())),
    merged_events: Type.Boolean(),
  },
  { examples: [{ priorities: { sleep: [exampleProviderId('ring'), 'watch'] }, merged_events: true }] },
);

// The JSON Schema of the `merged` webhook event, as events.ts builds it, for the OpenAPI document's
// `webhooks` section. Records are the model's (by `$id`) plus their provenance. It describes the
// payload; it builds none.
import Type, { type TSchema } from 'typebox';
import { dataTypes } from '../../model/index.ts';
import { ModelVersionSchema } from '../connections/webhook-user-schema.ts';
import { modelRef } from '../data/schemas.ts';
import { MERGED_TYPES } from './engine/merge-records.ts';
import { MERGED_EVENT_TYPE } from './events.ts';
import { Person, Provenance } from './schemas.ts';

export const mergeEventSchemas: Record<typeof MERGED_EVENT_TYPE, TSchema> = {
  [MERGED_EVENT_TYPE]: Type.Object(
    {
      type: Type.Literal(MERGED_EVENT_TYPE),
      data_type: Type.Union(MERGED_TYPES.map((name) => Type.Literal(name))),
      person: Person,
      day: Type.Union([Type.String({ examples: ['2025-01-01'] }), Type.Null()], {
        description: 'The local day whose merge changed; null for the answer to a merged read',
      }),
      data: Type.Array(
        Type.Intersect([
          Type.Union(MERGED_TYPES.map((name) => modelRef(dataTypes[name].schema))),
          Type.Object({ provenance: Provenance }),
        ]),
      ),
      version: ModelVersionSchema,
      reference: Type.Optional(
        Type.String({ description: 'The merged read that asked for it (to_webhook=true)' }),
      ),
    },
    {
      title: 'merged',
      description:
        'A person’s merged records of one type: sent when a change to one of their connections changed a merged day (merged_events on), or as the answer to a merged read with to_webhook=true.',
    },
  ),
};

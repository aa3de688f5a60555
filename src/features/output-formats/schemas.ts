// Route schemas of the output-format setting (`GET/PUT /v2/output-format`).
import Type from 'typebox';
import { MEDIA_TYPES, OUTPUT_FORMATS } from './formats.ts';

const FormatName = Type.Enum(OUTPUT_FORMATS, {
  description:
    'json: the JSON payload (default). fhir: data and athlete events as a FHIR R4 Bundle (application/fhir+json). ' +
    'fit: activity events as the provider’s original FIT file (application/vnd.ant.fit) where one is kept. ' +
    'An event with no such form is sent as JSON with `tributary-output-format: json` and `tributary-output-format-fallback` saying why.',
});

export const OutputFormatView = Type.Object(
  {
    output_format: FormatName,
    content_type: Type.String({
      description: 'The media type of deliveries that have the chosen form',
      examples: [MEDIA_TYPES.fhir],
    }),
    formats: Type.Array(Type.String(), { description: 'Every format there is' }),
  },
  { additionalProperties: false },
);

export const OutputFormatBody = Type.Object(
  { output_format: FormatName },
  { additionalProperties: false, examples: [{ output_format: 'fhir' }] },
);

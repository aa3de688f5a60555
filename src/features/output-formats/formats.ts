// The delivery formats a developer may choose (the vendor's processing type per environment:
// `json | fit | fhir`, docs/wire-contract.md#output-formats) and the media types each is sent as.

export const OUTPUT_FORMATS = ['json', 'fhir', 'fit'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const DEFAULT_OUTPUT_FORMAT: OutputFormat = 'json';

export const isOutputFormat = (value: unknown): value is OutputFormat =>
  typeof value === 'string' && (OUTPUT_FORMATS as readonly string[]).includes(value);

export const MEDIA_TYPES = {
  json: 'application/json',
  // FHIR's own JSON media type (https://hl7.org/fhir/R4/http.html#mime-type).
  fhir: 'application/fhir+json',
  // The media type ANT registered for FIT files with IANA
  // (https://www.iana.org/assignments/media-types/application/vnd.ant.fit).
  fit: 'application/vnd.ant.fit',
} as const satisfies Record<OutputFormat, string>;

/**
 * The header every delivery carries naming the format its body is in, so a receiver set to `fhir`
 * or `fit` can tell an event that has no such form (sent as its JSON payload) from one that has.
 */
export const FORMAT_HEADER = 'tributary-output-format';
/** Why a delivery is not in the developer's format (present only then). */
export const FALLBACK_HEADER = 'tributary-output-format-fallback';

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** An OpenAPI 3.1 document as the tests read it. */
export type Document = {
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, { post: Operation }>;
  components: { schemas: Record<string, unknown> };
};
export type Media = { schema?: unknown; example?: unknown; examples?: Record<string, { value: unknown }> };
export type Operation = {
  operationId?: string;
  description?: string;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
  'x-codeSamples'?: { lang: string; label: string; source: string }[];
};

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

export function operationsOf(document: Document): { method: string; path: string; operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => ({ method, path, operation })),
  );
}

/** The media's example value: `example`, or the first of `examples`. */
export function exampleOf(media: Media): { value: unknown } | undefined {
  if ('example' in media) return { value: media.example };
  const first = Object.values(media.examples ?? {})[0];
  return first ? { value: first.value } : undefined;
}

const pointerSegment = (segment: string) =>
  encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'));

/**
 * JSON Schema 2020-12 validators for schemas inside the document, found by their path in it, so
 * `#/components/schemas/…` references resolve against the document itself.
 */
export function documentValidators(document: Document) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv);
  ajv.addSchema({ ...document, $id: 'openapi.json' });
  return (...path: string[]): ValidateFunction => {
    const validate = ajv.getSchema(`openapi.json#/${path.map(pointerSegment).join('/')}`);
    if (!validate) throw new Error(`no schema at ${path.join(' / ')}`);
    return validate;
  };
}

/** Where an event's payload schema sits in the document's `webhooks` section (for `documentValidators`). */
export const webhookPayloadPath = (type: string) => [
  'webhooks',
  type,
  'post',
  'requestBody',
  'content',
  'application/json',
  'schema',
];

// Examples in the OpenAPI document. A schema's own `examples` (written next to it in the route
// schemas) always win; where a request body or a success response has none, one is composed from
// the schema itself: its field-level examples, consts, enums, defaults and formats, required
// fields always, optional ones only when they carry an example. The reference test validates every
// example against its schema, so a composed one that does not fit shows up there.
import { exampleProviderId } from '../provider-access/example-ids.ts';

type Schema = { [key: string]: unknown };
type Resolve = (ref: string) => Schema | undefined;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const MAX_DEPTH = 10;

const STRING_FORMATS: Record<string, string> = {
  'date-time': '2025-01-01T12:00:00.000000+00:00',
  date: '2025-01-01',
  time: '12:00:00',
  uuid: '8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41',
  email: 'person@example.com',
  uri: 'https://example.com/webhook',
  url: 'https://example.com/webhook',
  hostname: 'example.com',
};

/**
 * A plain string field gets a value its name suggests rather than "string": times look like
 * the wire's timestamps, ids like ids. Only names, never a route: nothing here knows an operation.
 */
const BY_NAME: [RegExp, string][] = [
  [/^reference_id$/, 'your-user-42'],
  [/^(url|webhook_url)$/, 'https://example.com/webhook'],
  [/(^|_)(url|uri)$/i, 'https://example.com/link'],
  [/^provider$/, exampleProviderId('watch')],
  [/(^id$|_id$|Id$|ID$)/, '8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41'],
  [/(_at|_time|timestamp|_by)$/, '2025-01-01T12:00:00.000000+00:00'],
  [/(^|_)date$/, '2025-01-01'],
  [/email/, 'person@example.com'],
  [/phone/, '+14155550100'],
  [/^first_name$/, 'Ada'],
  [/^last_name$/, 'Lovelace'],
];
const byName = (name: string | undefined) =>
  name === undefined ? undefined : BY_NAME.find(([pattern]) => pattern.test(name))?.[1];

/** The schema's own example, if it states one (`example`, `examples[0]`, `const`). */
export function declaredExample(schema: Schema): { value: unknown } | undefined {
  if ('example' in schema) return { value: schema.example };
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return { value: schema.examples[0] };
  if ('const' in schema) return { value: schema.const };
  return undefined;
}

const branches = (schema: Schema): Schema[] | undefined => {
  const list = schema.anyOf ?? schema.oneOf;
  return Array.isArray(list) ? list.filter(isSchema) : undefined;
};

const isNullSchema = (schema: Schema) => schema.type === 'null';

/** Whether a property is worth showing although optional: it states an example of its own. */
function statesExample(schema: Schema, resolve: Resolve): boolean {
  if (declaredExample(schema)) return true;
  const options = branches(schema);
  if (options) return options.some((option) => !isNullSchema(option) && statesExample(option, resolve));
  return false;
}

/** A value that fits `schema`, composed from what the schema says about itself. */
export function sampleOf(schema: unknown, resolve: Resolve, name?: string, depth = 0): unknown {
  if (!isSchema(schema)) return {};
  if (typeof schema.$ref === 'string') {
    const target = resolve(schema.$ref);
    return target && depth < MAX_DEPTH ? sampleOf(target, resolve, name, depth + 1) : {};
  }
  const declared = declaredExample(schema);
  if (declared) return declared.value;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...schema.allOf.map((part) => sampleOf(part, resolve, name, depth + 1)));
  }
  const options = branches(schema);
  if (options) {
    const chosen =
      options.find((option) => !isNullSchema(option) && statesExample(option, resolve)) ??
      options.find((option) => !isNullSchema(option)) ??
      options[0];
    return sampleOf(chosen, resolve, name, depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((each) => each !== 'null') : schema.type;
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return numberFor(schema);
    case 'string':
      return stringFor(schema, name);
    case 'array': {
      if (depth >= MAX_DEPTH || schema.maxItems === 0) return [];
      const count = Math.max(1, typeof schema.minItems === 'number' ? schema.minItems : 1);
      const item = sampleOf(schema.items, resolve, name, depth + 1);
      return Array.from({ length: count }, () => item);
    }
    default:
      return isSchema(schema.properties) ? objectFor(schema, resolve, depth) : {};
  }
}

function objectFor(schema: Schema, resolve: Resolve, depth: number): Record<string, unknown> {
  const properties = schema.properties as Record<string, unknown>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const sample: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    if (!isSchema(property)) continue;
    if (!required.has(key) && (depth >= MAX_DEPTH || !statesExample(property, resolve))) continue;
    sample[key] = sampleOf(property, resolve, key, depth + 1);
  }
  return sample;
}

function numberFor(schema: Schema): number {
  if (typeof schema.minimum === 'number') return schema.minimum;
  if (typeof schema.exclusiveMinimum === 'number') return schema.exclusiveMinimum + 1;
  if (typeof schema.maximum === 'number' && schema.maximum < 0) return schema.maximum;
  return schema.type === 'integer' ? 1 : 1.5;
}

function stringFor(schema: Schema, name: string | undefined): string {
  const format = typeof schema.format === 'string' ? STRING_FORMATS[schema.format] : undefined;
  if (format) return format;
  const base = byName(name) ?? 'string';
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  const padded = base.length < min ? base.padEnd(min, 'x') : base;
  return padded.length > max ? padded.slice(0, max) : padded;
}

/** Resolves `#/components/schemas/Name` (and a bare `Name`) within a document's components. */
export function resolverFor(components: Record<string, unknown> | undefined): Resolve {
  return (ref) => {
    const name = ref.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : ref;
    const found = components?.[name];
    return isSchema(found) ? found : undefined;
  };
}

type Media = { schema?: unknown; example?: unknown; examples?: unknown };

/** Gives a media type an example when it has none (its schema's own `examples` were moved there). */
export function ensureExample(media: Media, resolve: Resolve): void {
  if ('example' in media || (isSchema(media.examples) && Object.keys(media.examples).length > 0)) return;
  if (media.schema === undefined) return;
  media.example = sampleOf(media.schema, resolve);
}

/** The media's example value: `example`, or the first of `examples`. */
export function exampleOf(media: Media | undefined): { value: unknown } | undefined {
  if (!media) return undefined;
  if ('example' in media) return { value: media.example };
  if (isSchema(media.examples)) {
    const first = Object.values(media.examples)[0];
    if (isSchema(first) && 'value' in first) return { value: first.value };
  }
  return undefined;
}

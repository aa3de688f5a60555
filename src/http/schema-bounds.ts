// Every number a route accepts is range checked and every string has a length, even where a
// route's schema forgot to say so: `page=1e30` coerced to an integer and reached SQL as an
// OFFSET PostgreSQL could not hold. This fills in the missing bounds of a request schema
// (query, params, headers, body) on a copy, so the route's own objects (shared between routes
// and with the OpenAPI document's components) stay as written. Bounds a schema sets win.
import { INPUT_LIMITS } from './input-limits.ts';

type SchemaNode = Record<string | symbol, unknown>;

const isNode = (value: unknown): value is SchemaNode =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const typesOf = (node: SchemaNode): unknown[] =>
  Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];

/** Keywords whose value is one subschema, and those whose value is a list or a map of them. */
const ONE = ['items', 'additionalProperties', 'not', 'contains', 'if', 'then', 'else'] as const;
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const MAP = ['properties', 'patternProperties'] as const;

function withDefaults(node: SchemaNode, maxStringLength: number): SchemaNode {
  const copy: SchemaNode = { ...node };
  const types = typesOf(node);
  if (types.includes('integer')) {
    if (node.minimum === undefined && node.exclusiveMinimum === undefined)
      copy.minimum = INPUT_LIMITS.minInteger;
    if (node.maximum === undefined && node.exclusiveMaximum === undefined)
      copy.maximum = INPUT_LIMITS.maxInteger;
  } else if (types.includes('number')) {
    if (node.minimum === undefined && node.exclusiveMinimum === undefined)
      copy.minimum = -INPUT_LIMITS.maxNumberMagnitude;
    if (node.maximum === undefined && node.exclusiveMaximum === undefined)
      copy.maximum = INPUT_LIMITS.maxNumberMagnitude;
  }
  if (
    types.includes('string') &&
    node.maxLength === undefined &&
    node.enum === undefined &&
    node.const === undefined
  ) {
    copy.maxLength = maxStringLength;
  }
  for (const key of ONE) if (isNode(node[key])) copy[key] = withDefaults(node[key], maxStringLength);
  for (const key of LIST) {
    const list = node[key];
    if (Array.isArray(list))
      copy[key] = list.map((item: unknown) => (isNode(item) ? withDefaults(item, maxStringLength) : item));
  }
  for (const key of MAP) {
    const map = node[key];
    if (isNode(map)) {
      copy[key] = Object.fromEntries(
        Object.entries(map).map(([name, item]) => [
          name,
          isNode(item) ? withDefaults(item, maxStringLength) : item,
        ]),
      );
    }
  }
  // A $ref names a shared schema (the data model): its bounds live with it, and the body
  // walk of the input boundary still bounds every string and number inside it.
  return copy;
}

/** A copy of `schema` with default bounds on every unbounded integer, number and string. */
export function boundedSchema<T>(schema: T, maxStringLength: number): T {
  return isNode(schema) ? (withDefaults(schema, maxStringLength) as T) : schema;
}

type RouteSchema = {
  querystring?: unknown;
  query?: unknown;
  params?: unknown;
  headers?: unknown;
  body?: unknown;
};

/** The route schema with every request part bounded; the route's own objects are not touched. */
export function boundRouteSchema<T extends RouteSchema | undefined>(schema: T): T {
  if (!schema) return schema;
  const bounded: RouteSchema = { ...schema };
  for (const part of ['querystring', 'query', 'headers'] as const) {
    if (schema[part] !== undefined) bounded[part] = boundedSchema(schema[part], INPUT_LIMITS.maxQueryString);
  }
  if (schema.params !== undefined) bounded.params = boundedSchema(schema.params, INPUT_LIMITS.maxParamLength);
  if (schema.body !== undefined) bounded.body = boundedSchema(schema.body, INPUT_LIMITS.maxBodyString);
  return bounded as T;
}

// Walks the model's JSON Schemas. The schemas are deliberately open (clients must tolerate new
// fields), so validation alone cannot catch a misspelt key in data we produce; these helpers
// let tests of generators and normalizers check that every key they emit is a declared one.

type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
};

function asSchema(value: unknown): JsonSchema {
  return (value ?? {}) as JsonSchema;
}

/** The schema itself, or the members of its `anyOf` (nullable fields are unions with null). */
function alternatives(schema: JsonSchema): JsonSchema[] {
  return schema.anyOf ? schema.anyOf.flatMap(alternatives) : [schema];
}

/**
 * Paths (`a.b[].c`) of keys in `value` that `schema` does not declare. Maps typed as records
 * (`patternProperties`) accept any key.
 */
export function undeclaredKeys(schema: unknown, value: unknown, path = ''): string[] {
  const options = alternatives(asSchema(schema));
  if (Array.isArray(value)) {
    const arraySchema = options.find((option) => option.type === 'array');
    if (!arraySchema?.items) return [];
    return value.flatMap((item) => undeclaredKeys(arraySchema.items, item, `${path}[]`));
  }
  if (value === null || typeof value !== 'object') return [];
  const objectSchema = options.find((option) => option.type === 'object');
  if (!objectSchema || objectSchema.patternProperties || !objectSchema.properties) return [];
  const properties = objectSchema.properties;
  return Object.entries(value).flatMap(([key, child]) => {
    const childPath = path ? `${path}.${key}` : key;
    const childSchema = properties[key];
    return childSchema ? undeclaredKeys(childSchema, child, childPath) : [childPath];
  });
}

/**
 * Dotted paths of every array-typed property reachable through objects (not through array
 * items), e.g. `heart_rate_data.detailed.hr_samples`.
 */
export function arrayPropertyPaths(schema: unknown, path = ''): string[] {
  const result: string[] = [];
  for (const option of alternatives(asSchema(schema))) {
    if (option.type === 'array' && path) result.push(path);
    if (option.type === 'object' && option.properties) {
      for (const [key, child] of Object.entries(option.properties)) {
        result.push(...arrayPropertyPaths(child, path ? `${path}.${key}` : key));
      }
    }
  }
  return [...new Set(result)];
}

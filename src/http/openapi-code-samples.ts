// Code samples (`x-codeSamples`, as Redoc and Scalar render them) for every operation, generated
// from the operation itself: its method and path, sample values for its path and required query
// parameters, its request body example and whether it needs the API credentials. Nothing here is
// written per route, so a new route gets its samples with its schema. The credentials are the
// shell variables the README's walkthrough sets ($DEV, $KEY) and the same names in the environment.
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
  responses?: Record<string, { content?: Record<string, unknown> }>;
  security?: unknown[];
  'x-codeSamples'?: CodeSample[];
};

export type CodeSample = { lang: string; label: string; source: string };

type Request = {
  method: string;
  url: string;
  authenticated: boolean;
  /** JSON body, when the operation takes one. */
  body?: unknown;
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

/** The concrete request an operation's samples make: path filled in, required query given. */
export function sampleRequest(
  serverUrl: string,
  path: string,
  method: string,
  operation: Operation,
  components: Record<string, unknown> | undefined,
): Request {
  const parameters = operation.parameters ?? [];
  let filled = path;
  for (const parameter of parameters.filter((each) => each.in === 'path')) {
    filled = filled.replace(`{${parameter.name}}`, encodeURIComponent(parameterValue(parameter, components)));
  }
  const query = new URLSearchParams();
  for (const parameter of parameters.filter((each) => each.in === 'query' && each.required)) {
    query.set(parameter.name, parameterValue(parameter, components));
  }
  const search = query.size > 0 ? `?${query.toString()}` : '';
  const json = operation.requestBody?.content?.['application/json'];
  const body = exampleOf(json);
  const answersJson = Object.entries(operation.responses ?? {}).some(
    ([status, response]) => status.startsWith('2') && Boolean(response.content?.['application/json']),
  );
  return {
    method: method.toUpperCase(),
    url: `${serverUrl.replace(/\/$/, '')}${filled}${search}`,
    authenticated: (operation.security ?? []).length > 0,
    ...(body ? { body: body.value } : {}),
    answersJson,
  };
}

/** Single-quotes a string for a POSIX shell. */
const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

export function curlSample(request: Request): string {
  const lines = [`curl -sS -X ${request.method} ${shellQuote(request.url)}`];
  if (request.authenticated) lines.push(`-H "dev-id: $DEV"`, `-H "x-api-key: $KEY"`);
  if (request.body !== undefined) {
    lines.push(`-H 'content-type: application/json'`, `-d ${shellQuote(JSON.stringify(request.body))}`);
  }
  return lines.join(' \\\n  ');
}

export function typescriptSample(request: Request): string {
  const headers: string[] = [];
  if (request.authenticated) {
    headers.push(`'dev-id': process.env.DEV ?? ''`, `'x-api-key': process.env.KEY ?? ''`);
  }
  if (request.body !== undefined) headers.push(`'content-type': 'application/json'`);
  const init = [`  method: '${request.method}',`];
  if (headers.length > 0) init.push(`  headers: { ${headers.join(', ')} },`);
  if (request.body !== undefined) {
    const body = JSON.stringify(request.body, null, 2).replaceAll('\n', '\n  ');
    init.push(`  body: JSON.stringify(${body}),`);
  }
  return [
    `const response = await fetch(${JSON.stringify(request.url)}, {`,
    ...init,
    '});',
    'if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);',
    request.answersJson ? 'const result = await response.json();' : '',
  ]
    .filter(Boolean)
    .join('\n');
}

export function codeSamplesFor(request: Request): CodeSample[] {
  return [
    { lang: 'Shell', label: 'curl', source: curlSample(request) },
    { lang: 'TypeScript', label: 'TypeScript (fetch)', source: typescriptSample(request) },
  ];
}

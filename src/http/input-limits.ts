// What any string, number or structure from outside must satisfy before a route sees it. These
// are the checks of the one input boundary (input-boundary.ts); they are pure, so the unit tests
// and the boundary share them. Route schemas narrow further (formats, enums, tighter lengths).

export const INPUT_LIMITS = {
  /** Nesting of a request body: the deepest real body (a planned workout's repeat steps) is ~10. */
  maxBodyDepth: 32,
  /** Items of any array in a request body; schemas set tighter bounds where they know better. */
  maxArrayItems: 1000,
  /** Characters of any string (or key) in a request body. */
  maxBodyString: 65_536,
  /** Characters of any query parameter value or name. */
  maxQueryString: 4096,
  /** Characters of a path parameter: the router answers 414 beyond it. */
  maxParamLength: 100,
  /** Integers the database can hold (int4), unless a schema says otherwise. */
  minInteger: -2_147_483_648,
  maxInteger: 2_147_483_647,
  /** Non-integer numbers: far beyond any real measurement, well inside exact doubles. */
  maxNumberMagnitude: 1e15,
} as const;

/* eslint-disable no-control-regex -- finding control characters is what these are for */
/** NUL and the C0/DEL control characters; tab, line feed and carriage return are text. */
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
/** In a path segment nothing but printable characters. */
const CONTROL_IN_LINE = /[\u0000-\u001f\u007f]/;
/** Header values may carry a tab (RFC 9110 field-value); nothing else below space. */
const CONTROL_IN_HEADER = /[\u0000-\u0008\u000a-\u001f\u007f]/;
/* eslint-enable no-control-regex */

export type TextRule = 'text' | 'line' | 'header';
const RULES: Record<TextRule, RegExp> = {
  text: CONTROL_IN_TEXT,
  line: CONTROL_IN_LINE,
  header: CONTROL_IN_HEADER,
};

/** Why `value` may not pass the boundary, or null when it may. */
export function textProblem(value: string, rule: TextRule, maxLength: number): string | null {
  if (value.length > maxLength) return `longer than ${maxLength} characters`;
  const control = RULES[rule].exec(value);
  if (control) {
    return control[0] === '\u0000'
      ? 'must not contain NUL characters'
      : `must not contain control characters (U+${control[0].charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()})`;
  }
  if (!value.isWellFormed()) return 'must be well-formed Unicode (it has an unpaired surrogate)';
  return null;
}

export type InputProblem = { name: string; problem: string };

/** Field names are short words; a long one only makes error details long. */
const MAX_KEY_LENGTH = 256;

const child = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path || 'body'}[${key}]` : path === '' ? key : `${path}.${key}`;

/** Names in a detail stay readable however deep the problem sits. */
const shortName = (path: string) => (path.length > 200 ? `${path.slice(0, 200)}…` : path);

/** A JSON value or a parsed form: an array, or an object whose prototype is Object's or none. */
function isParsedStructure(value: object): boolean {
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * Walks a parsed request body (iteratively: a hostile body must not exhaust the stack) and
 * returns the first thing wrong with it: too deep, an array too long, a string or key too long
 * or carrying control characters, a number that is not finite (JSON's 1e400).
 */
export function bodyProblem(
  body: unknown,
  maxArrayItems: number = INPUT_LIMITS.maxArrayItems,
): InputProblem | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: body, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    const name = path === '' ? 'body' : shortName(path);
    if (typeof value === 'string') {
      const problem = textProblem(value, 'text', INPUT_LIMITS.maxBodyString);
      if (problem) return { name, problem };
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return { name, problem: 'number out of range' };
    } else if (value !== null && typeof value === 'object') {
      // Only what a body parser built from text is walked: plain objects and arrays. A raw body
      // handed over unparsed (a Buffer, an upload's request stream) is bytes, not a structure:
      // walking a stream's own fields (socket.parser.socket…) refused every raw upload.
      if (!isParsedStructure(value)) continue;
      if (depth >= INPUT_LIMITS.maxBodyDepth) {
        return { name, problem: `nested deeper than ${INPUT_LIMITS.maxBodyDepth} levels` };
      }
      if (Array.isArray(value)) {
        if (value.length > maxArrayItems) {
          return { name, problem: `more than ${maxArrayItems} items` };
        }
        for (let index = value.length - 1; index >= 0; index--) {
          stack.push({ value: value[index], path: child(path, index), depth: depth + 1 });
        }
      } else {
        const entries = Object.entries(value);
        for (let index = entries.length - 1; index >= 0; index--) {
          const [key, item] = entries[index]!;
          const keyProblem = textProblem(key, 'line', MAX_KEY_LENGTH);
          if (keyProblem) return { name: `${name} field name`, problem: keyProblem };
          stack.push({ value: item, path: child(path, key), depth: depth + 1 });
        }
      }
    }
  }
  return null;
}

/** Percent-decodes a URL component; null when the encoding is malformed (bad UTF-8 included). */
function decodeComponent(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** A query component: `+` is a space there. */
const decodeQueryComponent = (text: string) => decodeComponent(text.replaceAll('+', ' '));

/**
 * Checks the raw request target: every path segment printable and well-formed, every query
 * name and value within length and free of control characters, all percent-encoding valid
 * (malformed UTF-8 included). Checked on the raw URL, so it holds whatever parser runs later.
 */
export function urlProblem(url: string): InputProblem | null {
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  for (const segment of path.split('/')) {
    const decoded = decodeComponent(segment);
    if (decoded === null) return { name: 'path', problem: 'malformed percent-encoding' };
    const problem = textProblem(decoded, 'line', Number.MAX_SAFE_INTEGER);
    if (problem) return { name: 'path', problem };
  }
  if (mark === -1) return null;
  for (const pair of url.slice(mark + 1).split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const key = decodeQueryComponent(equals === -1 ? pair : pair.slice(0, equals));
    if (key === null) return { name: 'query string', problem: 'malformed percent-encoding' };
    const keyProblem = textProblem(key, 'line', INPUT_LIMITS.maxQueryString);
    if (keyProblem) return { name: 'query parameter name', problem: keyProblem };
    const value = equals === -1 ? '' : decodeQueryComponent(pair.slice(equals + 1));
    if (value === null) return { name: key, problem: 'malformed percent-encoding' };
    const problem = textProblem(value, 'text', INPUT_LIMITS.maxQueryString);
    if (problem) return { name: key, problem };
  }
  return null;
}

/** Every header value: no control characters but tab (Node's parser is lenient with some). */
export function headerProblem(headers: Record<string, string | string[] | undefined>): InputProblem | null {
  for (const [name, value] of Object.entries(headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      const problem = textProblem(item, 'header', Number.MAX_SAFE_INTEGER);
      if (problem) return { name: `${name} header`, problem };
    }
  }
  return null;
}

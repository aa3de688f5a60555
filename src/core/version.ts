import { readFileSync } from 'node:fs';

/** The package version, read once; it names the service in user agents and OpenAPI. */
export const version: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

import { dataTypeNames } from '../model/index.ts';
import type { Provider } from './types.ts';

export type ProviderDeclarationProblem = { provider: string; problem: string };

const DATA_TYPES = new Set<string>([...dataTypeNames, 'athlete']);
const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Declarations are data, so they are checked like data: a typo in a URL or a data type fails
 * the boot with the provider named, instead of failing a user's connection later.
 */
export function validateDeclaration(key: string, provider: Provider): ProviderDeclarationProblem[] {
  const d = provider.declaration;
  const problems: string[] = [];
  if (d.id !== key) problems.push(`registered as ${key} but declares id ${d.id}`);
  if (!/^[A-Z][A-Z0-9_]*$/.test(d.id)) problems.push('id must be upper-case letters, digits and underscores');
  if (d.name.trim() === '') problems.push('name is empty');
  if (!/^[A-Za-z0-9]{1,3}$/.test(d.icon.initials))
    problems.push('icon initials must be 1-3 letters or digits');
  if (!HEX_COLOUR.test(d.icon.background)) problems.push('icon background must be #RRGGBB');
  if (d.icon.foreground !== undefined && !HEX_COLOUR.test(d.icon.foreground)) {
    problems.push('icon foreground must be #RRGGBB');
  }
  if (d.authKind === 'sdk' && d.oauth) problems.push('an SDK provider has no OAuth declaration');
  if (d.authKind === 'api_key') {
    if (d.oauth) problems.push('an api_key provider has no OAuth declaration');
    if (!d.apiKey) problems.push('api_key needs an apiKey declaration');
    else if (!/^[a-z0-9-]+$/.test(d.apiKey.header)) problems.push('apiKey header must be a lower-case name');
    if (d.apiKey?.helpUrl !== undefined && !isHttpsUrl(d.apiKey.helpUrl))
      problems.push(`apiKey helpUrl is not an https URL: ${d.apiKey.helpUrl}`);
    if (!provider.connector?.checkApiKey) problems.push('api_key needs a checkApiKey hook');
  } else if (d.apiKey) problems.push(`${d.authKind} has no apiKey declaration`);
  if (d.authKind !== 'sdk' && d.authKind !== 'api_key' && !d.oauth)
    problems.push(`${d.authKind} needs an oauth declaration`);
  if (d.oauth) {
    const hosted = d.credentials === 'none';
    const endpointOk = (url: string) => isHttpsUrl(url) || (hosted && url.startsWith('/'));
    const o = d.oauth;
    if (!endpointOk(o.authorizeUrl)) problems.push(`authorizeUrl is not an https URL: ${o.authorizeUrl}`);
    if (!endpointOk(o.tokenUrl)) problems.push(`tokenUrl is not an https URL: ${o.tokenUrl}`);
    if (o.accountId?.from === 'userinfo' && !endpointOk(o.accountId.url)) {
      problems.push(`accountId url is not an https URL: ${o.accountId.url}`);
    }
    if (o.revoke && !endpointOk(o.revoke.url))
      problems.push(`revoke url is not an https URL: ${o.revoke.url}`);
    for (const scope of o.scopes) {
      if (scope === '' || /[\s,]/.test(scope))
        problems.push(`scope "${scope}" is empty or contains a separator`);
    }
    if (new Set(o.scopes).size !== o.scopes.length) problems.push('scopes repeat');
  }
  if (d.dataTypes.length === 0) problems.push('offers no data types');
  for (const type of d.dataTypes) if (!DATA_TYPES.has(type)) problems.push(`unknown data type "${type}"`);
  if (new Set(d.dataTypes).size !== d.dataTypes.length) problems.push('data types repeat');
  if (d.writesPlannedWorkouts && !d.dataTypes.includes('plannedWorkout')) {
    problems.push('writes planned workouts but does not offer plannedWorkout');
  }
  if (d.historyDays !== null && (!Number.isInteger(d.historyDays) || d.historyDays <= 0)) {
    problems.push('historyDays must be a positive integer or null');
  }
  const api = provider.connector?.api;
  if (api) {
    const whole = (value: number) => Number.isInteger(value) && value > 0;
    const windowsOk = api.requestWindows.every((w) => whole(w.requests) && whole(w.seconds));
    if (api.requestWindows.length === 0 || !windowsOk) {
      problems.push('api request windows must be whole requests per whole seconds, at least one');
    }
    if (!(api.userShare > 0 && api.userShare <= 1)) problems.push('api userShare must be in (0, 1]');
    if (!whole(api.backfillDays) || !whole(api.backfillChunkDays)) {
      problems.push('api backfill days must be positive integers');
    }
  }
  return problems.map((problem) => ({ provider: key, problem }));
}

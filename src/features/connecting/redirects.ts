import { invalidParameter } from '../../core/errors.ts';

/** Redirect targets a developer supplies must be absolute http(s) URLs (no `javascript:`, no paths). */
export function parseRedirectUrl(name: string, value: string | null | undefined): string | null {
  if (value === undefined || value === null || value === '') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidParameter(name, 'must be an absolute http(s) URL');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') {
    throw invalidParameter(name, 'must be an absolute http(s) URL without credentials');
  }
  if (value.length > 2048) throw invalidParameter(name, 'must be at most 2048 characters');
  return url.toString();
}

/** Appends the outcome parameters, keeping whatever query the developer's URL already has. */
export function withOutcome(target: string, params: Record<string, string | null>): string {
  const url = new URL(target);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
  return url.toString();
}

export function parseReferenceId(value: string | null | undefined): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (value.length > 255) throw invalidParameter('reference_id', 'must be at most 255 characters');
  return value;
}

// The SANDBOX consent decision, as a real provider would make it: what the hosted consent page
// (http/routes/sandbox-consent.ts) and the CLI's headless connect both call.
import { randomBytes } from 'node:crypto';
import { type Language, resolveLanguage } from '../../core/languages.ts';
import { oauthCallbackUrl } from '../../provider-kit/callback-url.ts';
import type { ProviderRuntime } from '../../provider-kit/types.ts';
import { issueCode } from './grant.ts';

export const CONSENT_PATH = '/providers/sandbox/consent';
export const TOKEN_PATH = '/providers/sandbox/token';
const ACCOUNT = /^[A-Za-z0-9._@-]{1,64}$/;

/** The authorize request, as a real provider would receive it. */
export type ConsentRequest = {
  response_type?: string;
  redirect_uri?: string;
  state?: string;
  scope?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  ui_locales?: string;
};

export type Checked = {
  redirectUri: string;
  state: string;
  scope: string;
  codeChallenge: string;
  language: Language;
};

export class ConsentError extends Error {
  override name = 'ConsentError';
}

/**
 * Like a real provider, the sandbox redirects only to the registered redirect URI (our own
 * callback), so its consent page can never be turned into an open redirect.
 */
export function check(runtime: ProviderRuntime, request: ConsentRequest): Checked {
  if (request.response_type !== 'code') throw new ConsentError('response_type must be code');
  if (request.redirect_uri !== oauthCallbackUrl(runtime.config.publicUrl, 'SANDBOX')) {
    throw new ConsentError('redirect_uri is not registered');
  }
  if (!request.state) throw new ConsentError('state is missing');
  if (!request.code_challenge || request.code_challenge_method !== 'S256') {
    throw new ConsentError('PKCE with S256 is required');
  }
  return {
    redirectUri: request.redirect_uri,
    state: request.state,
    scope: request.scope ?? '',
    codeChallenge: request.code_challenge,
    language: resolveLanguage(request.ui_locales),
  };
}

/**
 * The user's decision, as the consent form submits it; returns where the browser goes next.
 * The CLI's headless connect calls this too, so both take the same path.
 */
export function decideConsent(
  runtime: ProviderRuntime,
  request: ConsentRequest,
  decision: 'approve' | 'deny',
  account: string,
): string {
  const checked = check(runtime, request);
  const target = new URL(checked.redirectUri);
  if (decision === 'deny') {
    target.searchParams.set('error', 'access_denied');
    target.searchParams.set('error_description', 'The user denied access');
  } else {
    if (!ACCOUNT.test(account)) throw new ConsentError('account must be 1-64 letters, digits or . _ @ -');
    const code = issueCode(runtime, {
      account,
      scope: checked.scope,
      codeChallenge: checked.codeChallenge,
      redirectUri: checked.redirectUri,
    });
    target.searchParams.set('code', code);
    target.searchParams.set('scope', checked.scope);
  }
  target.searchParams.set('state', checked.state);
  return target.toString();
}

// eslint-disable-next-line ids/mint-through-core -- the simulated provider's own account id, not a Tributary id
export const newSandboxAccount = () => `sandbox-${randomBytes(4).toString('hex')}`;

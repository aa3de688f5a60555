import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { App } from '../app-type.ts';
import {
  escapeHtml,
  formBodyParser,
  renderMessagePage,
  renderPage,
  sendHostedPage,
  sendHostedRedirect,
} from '../hosted/html.ts';
import { fill, type Language, messagesFor, resolveLanguage } from '../hosted/i18n.ts';
import { oauthCallbackUrl } from '../../provider-kit/callback-url.ts';
import type { ProviderRuntime } from '../../provider-kit/types.ts';
import { exchangeCode, issueCode, SandboxGrantError } from '../../providers/sandbox/grant.ts';

export const CONSENT_PATH = '/providers/sandbox/consent';
const TOKEN_PATH = '/providers/sandbox/token';
const PROVIDER_NAME = 'Sandbox';
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

type Checked = {
  redirectUri: string;
  state: string;
  scope: string;
  codeChallenge: string;
  language: Language;
};

class ConsentError extends Error {
  override name = 'ConsentError';
}

/**
 * Like a real provider, the sandbox redirects only to the registered redirect URI (our own
 * callback), so its consent page can never be turned into an open redirect.
 */
function check(runtime: ProviderRuntime, request: ConsentRequest): Checked {
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

export const newSandboxAccount = () => `sandbox-${randomBytes(4).toString('hex')}`;

function renderConsent(checked: Checked): string {
  const m = messagesFor(checked.language);
  const title = fill(m.consentTitle, { provider: PROVIDER_NAME });
  const hidden = Object.entries({
    response_type: 'code',
    redirect_uri: checked.redirectUri,
    state: checked.state,
    scope: checked.scope,
    code_challenge: checked.codeChallenge,
    code_challenge_method: 'S256',
    ui_locales: checked.language,
  })
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
    .join('\n');
  const scopes = checked.scope
    .split(' ')
    .filter(Boolean)
    .map((scope) => `<li>${escapeHtml(scope)}</li>`)
    .join('');
  return renderPage({
    language: checked.language,
    title,
    body: `<div class="card">
<div class="header"><img src="/v2/static/icons/sandbox.svg" alt=""><h1>${escapeHtml(title)}</h1></div>
<p>${escapeHtml(m.consentIntro)}</p>
<p class="muted">${escapeHtml(m.consentScopes)}</p>
<ul class="scopes">${scopes}</ul>
<form method="post" action="${CONSENT_PATH}">
${hidden}
<label for="account">${escapeHtml(m.consentAccount)}</label>
<input type="text" id="account" name="account" value="${newSandboxAccount()}" autocomplete="off" spellcheck="false"
 pattern="[A-Za-z0-9._@\\-]{1,64}" required aria-describedby="account-hint">
<p class="muted" id="account-hint">${escapeHtml(m.consentAccountHint)}</p>
<div class="actions">
<button type="submit" class="secondary" name="decision" value="deny" formnovalidate>${escapeHtml(m.deny)}</button>
<button type="submit" class="primary" name="decision" value="approve">${escapeHtml(m.approve)}</button>
</div>
</form>
</div>`,
  });
}

function invalidRequest(reply: FastifyReply, request: ConsentRequest) {
  const language = resolveLanguage(request.ui_locales);
  const m = messagesFor(language);
  return sendHostedPage(reply, 400, renderMessagePage(language, m.invalidTitle, m.invalidBody));
}

export async function registerConsentRoutes(app: App, runtime: ProviderRuntime) {
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, formBodyParser);
    const options = { config: { auth: 'none' as const }, schema: { hide: true } as object };

    scope.get(CONSENT_PATH, options, async (request, reply) => {
      const query = request.query as ConsentRequest;
      try {
        return sendHostedPage(reply, 200, renderConsent(check(runtime, query)));
      } catch (error) {
        if (error instanceof ConsentError) return invalidRequest(reply, query);
        throw error;
      }
    });

    scope.post(CONSENT_PATH, options, async (request, reply) => {
      const form = (request.body ?? {}) as ConsentRequest & { decision?: string; account?: string };
      const decision = form.decision === 'approve' ? 'approve' : 'deny';
      try {
        return sendHostedRedirect(reply, decideConsent(runtime, form, decision, (form.account ?? '').trim()));
      } catch (error) {
        if (error instanceof ConsentError) return invalidRequest(reply, form);
        throw error;
      }
    });

    // A standard token endpoint, so the sandbox also works with any OAuth2 client.
    scope.post(TOKEN_PATH, options, async (request, reply) => {
      const form = (request.body ?? {}) as Record<string, string | undefined>;
      if (form.grant_type !== 'authorization_code' || !form.code || !form.redirect_uri) {
        return reply.code(400).header('cache-control', 'no-store').send({ error: 'invalid_request' });
      }
      try {
        const tokens = await exchangeCode(
          { code: form.code, codeVerifier: form.code_verifier ?? null, redirectUri: form.redirect_uri },
          runtime,
        );
        return reply.header('cache-control', 'no-store').send(tokens.raw);
      } catch (error) {
        if (!(error instanceof SandboxGrantError)) throw error;
        return reply
          .code(400)
          .header('cache-control', 'no-store')
          .send({ error: 'invalid_grant', error_description: error.message });
      }
    });
  });
}

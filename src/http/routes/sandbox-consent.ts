// The simulated provider's hosted pages: its consent page and a standard token endpoint, so the
// whole OAuth2 + PKCE redirect flow runs on a fresh machine with no external account.
import type { FastifyReply } from 'fastify';
import { resolveLanguage } from '../../core/languages.ts';
import type { ProviderRuntime } from '../../provider-kit/types.ts';
import {
  type Checked,
  CONSENT_PATH,
  ConsentError,
  type ConsentRequest,
  check,
  decideConsent,
  newSandboxAccount,
  TOKEN_PATH,
} from '../../providers/sandbox/consent.ts';
import { exchangeCode, SandboxGrantError } from '../../providers/sandbox/grant.ts';
import type { App } from '../app-type.ts';
import { html, joinHtml, type SafeHtml } from '../safe-html.ts';
import {
  formBodyParser,
  renderMessagePage,
  renderPage,
  sendHostedPage,
  sendHostedRedirect,
} from '../hosted/html.ts';
import { fill, messagesFor } from '../hosted/i18n.ts';

const PROVIDER_NAME = 'Sandbox';

function renderConsent(checked: Checked): SafeHtml {
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
  }).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  const scopes = checked.scope
    .split(' ')
    .filter(Boolean)
    .map((scope) => html`<li>${scope}</li>`);
  return renderPage({
    language: checked.language,
    title,
    body: html`<div class="card">
<div class="header"><img src="/v2/static/icons/sandbox.svg" alt=""><h1>${title}</h1></div>
<p>${m.consentIntro}</p>
<p class="muted">${m.consentScopes}</p>
<ul class="scopes">${scopes}</ul>
<form method="post" action="${CONSENT_PATH}">
${joinHtml(hidden, '\n')}
<label for="account">${m.consentAccount}</label>
<input type="text" id="account" name="account" value="${newSandboxAccount()}" autocomplete="off" spellcheck="false"
 pattern="[A-Za-z0-9._@\\-]{1,64}" required aria-describedby="account-hint">
<p class="muted" id="account-hint">${m.consentAccountHint}</p>
<div class="actions">
<button type="submit" class="secondary" name="decision" value="deny" formnovalidate>${m.deny}</button>
<button type="submit" class="primary" name="decision" value="approve">${m.approve}</button>
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

export async function registerSandboxConsentRoutes(app: App, runtime: ProviderRuntime) {
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

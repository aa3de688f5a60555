// The hosted key page of providers whose end users hand over a personal API key instead of an
// OAuth consent (authKind `api_key`): the auth link points here; the form posts the key back,
// the connecting feature checks it with the provider and connects, or shows the form again
// saying why the key was not taken. Generic: everything provider-specific is in the declaration.
import type { FastifyReply } from 'fastify';
import { API_KEY_ROUTE } from '../../features/connecting/auth-link.ts';
import type { ApiKeyOutcome } from '../../features/connecting/callback.ts';
import type { AppContext } from '../../features/context.ts';
import { iconPath } from '../../features/integrations/service.ts';
import type { Language } from '../../core/languages.ts';
import type { App } from '../app-type.ts';
import { html, type SafeHtml } from '../safe-html.ts';
import {
  formBodyParser,
  renderMessagePage,
  renderPage,
  sendHostedPage,
  sendHostedRedirect,
} from '../hosted/html.ts';
import { browserLanguage, createHostedLimits, refuseHosted } from '../hosted/limits.ts';
import { fill, messagesFor } from '../hosted/i18n.ts';

type KeyMessages = {
  title: string;
  intro: string;
  label: string;
  where: string;
  submit: string;
  cancel: string;
  malformed: string;
  refused: string;
  unreachable: string;
};

/** English everywhere for now; other languages fall back to it (a translation is welcome). */
const KEY_MESSAGES: Partial<Record<Language, KeyMessages>> & { en: KeyMessages } = {
  en: {
    title: 'Connect {provider}',
    intro: '{provider} connects with a personal API key. It is checked with {provider} and stored encrypted.',
    label: 'Your {provider} API key',
    where: 'Where to find it',
    submit: 'Connect',
    cancel: 'Cancel',
    malformed: 'Enter the key as {provider} shows it, without spaces.',
    refused: '{provider} did not accept this key. Check it and try again.',
    unreachable: '{provider} could not be reached to check the key. Try again in a moment.',
  },
  de: {
    title: '{provider} verbinden',
    intro:
      '{provider} wird mit einem persönlichen API-Schlüssel verbunden. Er wird bei {provider} geprüft und verschlüsselt gespeichert.',
    label: 'Ihr {provider}-API-Schlüssel',
    where: 'Wo Sie ihn finden',
    submit: 'Verbinden',
    cancel: 'Abbrechen',
    malformed: 'Geben Sie den Schlüssel so ein, wie {provider} ihn anzeigt, ohne Leerzeichen.',
    refused: '{provider} hat diesen Schlüssel nicht angenommen. Bitte prüfen und erneut versuchen.',
    unreachable: '{provider} war zur Prüfung nicht erreichbar. Bitte gleich noch einmal versuchen.',
  },
};

const keyMessagesFor = (language: Language) => KEY_MESSAGES[language] ?? KEY_MESSAGES.en;

function renderKeyForm(outcome: Extract<ApiKeyOutcome, { kind: 'form' }>, state: string): SafeHtml {
  const m = keyMessagesFor(outcome.language);
  const name = { provider: outcome.provider.declaration.name };
  const title = fill(m.title, name);
  const error = outcome.error ? fill(m[outcome.error], name) : null;
  const action = API_KEY_ROUTE.replace(':provider', outcome.provider.id);
  return renderPage({
    language: outcome.language,
    title,
    body: html`<div class="card">
<div class="header"><img src="${iconPath(outcome.provider.id)}" alt=""><h1>${title}</h1></div>
<p>${fill(m.intro, name)}</p>
${error ? html`<p class="error" role="alert" id="key-error">${error}</p>` : html``}
<form method="post" action="${action}">
<input type="hidden" name="state" value="${state}">
<label for="api_key">${fill(m.label, name)}</label>
<input type="text" id="api_key" name="api_key" autocomplete="off" spellcheck="false" required maxlength="512"${
      error ? html` aria-invalid="true" aria-describedby="key-error"` : html``
    }>
${outcome.helpUrl ? html`<p class="muted"><a href="${outcome.helpUrl}" rel="noopener noreferrer" target="_blank">${m.where}</a></p>` : html``}
<div class="actions">
<button type="submit" class="secondary" name="decision" value="cancel" formnovalidate>${m.cancel}</button>
<button type="submit" class="primary" name="decision" value="connect">${m.submit}</button>
</div>
</form>
</div>`,
  });
}

function sendOutcome(reply: FastifyReply, outcome: ApiKeyOutcome, state: string) {
  if (outcome.kind === 'form')
    return sendHostedPage(reply, outcome.error ? 422 : 200, renderKeyForm(outcome, state));
  if (outcome.kind === 'redirect') return sendHostedRedirect(reply, outcome.location, 303);
  const m = messagesFor(outcome.language);
  if (outcome.kind === 'unavailable')
    return sendHostedPage(
      reply,
      403,
      renderMessagePage(outcome.language, m.unavailableTitle, m.unavailableBody),
    );
  if (outcome.reason === 'state_used')
    return sendHostedPage(reply, 400, renderMessagePage(outcome.language, m.usedTitle, m.usedBody));
  return sendHostedPage(reply, 400, renderMessagePage(outcome.language, m.invalidTitle, m.invalidBody));
}

export async function registerApiKeyPageRoutes(app: App, ctx: AppContext) {
  const limits = createHostedLimits(ctx);
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, formBodyParser);
    const options = { config: { auth: 'none' as const }, schema: { hide: true } as object };
    type Params = { provider: string };

    scope.get<{ Params: Params; Querystring: { state?: string } }>(
      API_KEY_ROUTE,
      options,
      async (request, reply) => {
        const state = typeof request.query.state === 'string' ? request.query.state : '';
        return sendOutcome(reply, await ctx.connecting.apiKeyStep(request.params.provider, { state }), state);
      },
    );

    scope.post<{ Params: Params }>(API_KEY_ROUTE, options, async (request, reply) => {
      // Every submission asks the provider about a key: limited like the widget's starts.
      const busy = await limits.admit(request);
      if (busy)
        return refuseHosted(request, reply, busy, { language: browserLanguage(request), title: 'busy' });
      const form = (request.body ?? {}) as Record<string, string | undefined>;
      const state = form.state ?? '';
      const cancel = form.decision === 'cancel';
      const outcome = await ctx.connecting.apiKeyStep(request.params.provider, {
        state,
        cancel,
        apiKey: cancel ? undefined : (form.api_key ?? ''),
      });
      return sendOutcome(reply, outcome, state);
    });
  });
}

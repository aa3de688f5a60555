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

/** The key page's texts in every language of the hosted pages (`{provider}` is filled in). */
const KEY_MESSAGES: Record<Language, KeyMessages> = {
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
  fr: {
    title: 'Connecter {provider}',
    intro:
      '{provider} se connecte avec une clé API personnelle. Elle est vérifiée auprès de {provider} et conservée chiffrée.',
    label: 'Votre clé API {provider}',
    where: 'Où la trouver',
    submit: 'Connecter',
    cancel: 'Annuler',
    malformed: 'Saisissez la clé telle que {provider} l’affiche, sans espaces.',
    refused: '{provider} n’a pas accepté cette clé. Vérifiez-la et réessayez.',
    unreachable: '{provider} n’a pas pu être joint pour vérifier la clé. Réessayez dans un instant.',
  },
  es: {
    title: 'Conectar {provider}',
    intro:
      '{provider} se conecta con una clave de API personal. Se comprueba con {provider} y se guarda cifrada.',
    label: 'Tu clave de API de {provider}',
    where: 'Dónde encontrarla',
    submit: 'Conectar',
    cancel: 'Cancelar',
    malformed: 'Introduce la clave tal como la muestra {provider}, sin espacios.',
    refused: '{provider} no aceptó esta clave. Compruébala e inténtalo de nuevo.',
    unreachable: 'No se pudo contactar con {provider} para comprobar la clave. Inténtalo en un momento.',
  },
  it: {
    title: 'Collega {provider}',
    intro:
      '{provider} si collega con una chiave API personale. Viene verificata con {provider} e conservata cifrata.',
    label: 'La tua chiave API di {provider}',
    where: 'Dove trovarla',
    submit: 'Collega',
    cancel: 'Annulla',
    malformed: 'Inserisci la chiave come la mostra {provider}, senza spazi.',
    refused: '{provider} non ha accettato questa chiave. Controllala e riprova.',
    unreachable: 'Non è stato possibile contattare {provider} per verificare la chiave. Riprova tra poco.',
  },
  nl: {
    title: '{provider} koppelen',
    intro:
      '{provider} wordt gekoppeld met een persoonlijke API-sleutel. Die wordt bij {provider} gecontroleerd en versleuteld bewaard.',
    label: 'Je {provider}-API-sleutel',
    where: 'Waar je hem vindt',
    submit: 'Koppelen',
    cancel: 'Annuleren',
    malformed: 'Voer de sleutel in zoals {provider} hem toont, zonder spaties.',
    refused: '{provider} heeft deze sleutel niet geaccepteerd. Controleer hem en probeer het opnieuw.',
    unreachable: '{provider} was niet bereikbaar om de sleutel te controleren. Probeer het zo opnieuw.',
  },
  pt: {
    title: 'Conectar {provider}',
    intro:
      '{provider} conecta-se com uma chave de API pessoal. Ela é verificada com {provider} e guardada cifrada.',
    label: 'Sua chave de API do {provider}',
    where: 'Onde encontrá-la',
    submit: 'Conectar',
    cancel: 'Cancelar',
    malformed: 'Digite a chave como {provider} a mostra, sem espaços.',
    refused: '{provider} não aceitou esta chave. Verifique-a e tente de novo.',
    unreachable: 'Não foi possível contatar {provider} para verificar a chave. Tente de novo em instantes.',
  },
  ja: {
    title: '{provider}を接続',
    intro: '{provider}は個人用APIキーで接続します。キーは{provider}で確認され、暗号化して保存されます。',
    label: '{provider}のAPIキー',
    where: 'キーの確認方法',
    submit: '接続',
    cancel: 'キャンセル',
    malformed: '{provider}に表示されたとおりに、空白を入れずにキーを入力してください。',
    refused: '{provider}はこのキーを受け付けませんでした。確認してもう一度お試しください。',
    unreachable:
      'キーの確認のために{provider}に接続できませんでした。しばらくしてからもう一度お試しください。',
  },
};

const keyMessagesFor = (language: Language) => KEY_MESSAGES[language];

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

import { iconPath } from '../../features/integrations/service.ts';
import { html, joinHtml, type SafeHtml } from '../safe-html.ts';
import { renderMessagePage, renderPage } from './html.ts';
import { fill, type Language, messagesFor } from './i18n.ts';
import { type WidgetView, widgetPath } from '../../features/widget/service.ts';

type OpenWidget = Extract<WidgetView, { state: 'open' }>;

/** The provider picker: one form, one real <button> per provider (keyboard and screen readers for free). */
export function renderWidget(view: OpenWidget): SafeHtml {
  const { language, sessionId, providers } = view;
  const m = messagesFor(language);
  const items = providers.map((provider) => {
    const label = fill(m.connect, { provider: provider.declaration.name });
    return html`<li><button type="submit" class="provider-button" name="provider" value="${provider.id}">
<img src="${iconPath(provider.id)}" alt="" width="40" height="40"><span>${label}</span></button></li>`;
  });
  const list =
    providers.length > 0
      ? html`<form method="post" action="${widgetPath(sessionId)}/connect">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<ul class="providers">
${joinHtml(items, '\n')}
</ul>
</form>`
      : html`<p role="status">${m.noProviders}</p>`;
  return renderPage({
    language,
    title: m.widgetTitle,
    body: html`<div class="card">
<h1>${m.widgetTitle}</h1>
<p class="muted">${m.widgetIntro}</p>
${list}
<p class="muted">${m.privacyNote}</p>
</div>`,
  });
}

export function renderClosedWidget(
  language: Language,
  state: Exclude<WidgetView['state'], 'open'>,
): SafeHtml {
  const m = messagesFor(language);
  if (state === 'unavailable') return renderMessagePage(language, m.unavailableTitle, m.unavailableBody);
  if (state === 'expired') return renderMessagePage(language, m.expiredTitle, m.expiredBody);
  if (state === 'completed') return renderMessagePage(language, m.usedTitle, m.usedBody);
  return renderMessagePage(language, m.invalidTitle, m.invalidBody);
}

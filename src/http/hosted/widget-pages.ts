import { iconPath } from '../../features/integrations/service.ts';
import { escapeHtml, renderMessagePage, renderPage } from './html.ts';
import { fill, type Language, messagesFor } from './i18n.ts';
import { type WidgetView, widgetPath } from '../../features/widget/service.ts';

type OpenWidget = Extract<WidgetView, { state: 'open' }>;

/** The provider picker: one form, one real <button> per provider (keyboard and screen readers for free). */
export function renderWidget(view: OpenWidget): string {
  const { language, sessionId, providers } = view;
  const m = messagesFor(language);
  const items = providers
    .map((provider) => {
      const label = fill(m.connect, { provider: provider.declaration.name });
      return `<li><button type="submit" class="provider-button" name="provider" value="${escapeHtml(provider.id)}">
<img src="${iconPath(provider.id)}" alt="" width="40" height="40"><span>${escapeHtml(label)}</span></button></li>`;
    })
    .join('\n');
  const list =
    providers.length > 0
      ? `<form method="post" action="${widgetPath(sessionId)}/connect">
<input type="hidden" name="csrf_token" value="${escapeHtml(view.csrfToken)}">
<ul class="providers">
${items}
</ul>
</form>`
      : `<p role="status">${escapeHtml(m.noProviders)}</p>`;
  return renderPage({
    language,
    title: m.widgetTitle,
    body: `<div class="card">
<h1>${escapeHtml(m.widgetTitle)}</h1>
<p class="muted">${escapeHtml(m.widgetIntro)}</p>
${list}
<p class="muted">${escapeHtml(m.privacyNote)}</p>
</div>`,
  });
}

export function renderClosedWidget(language: Language, state: Exclude<WidgetView['state'], 'open'>): string {
  const m = messagesFor(language);
  if (state === 'unavailable') return renderMessagePage(language, m.unavailableTitle, m.unavailableBody);
  if (state === 'expired') return renderMessagePage(language, m.expiredTitle, m.expiredBody);
  if (state === 'completed') return renderMessagePage(language, m.usedTitle, m.usedBody);
  return renderMessagePage(language, m.invalidTitle, m.invalidBody);
}

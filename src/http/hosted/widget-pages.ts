import type { ResolvedProvider } from '../../provider-access/catalog.ts';
import { iconPath } from '../../features/integrations/service.ts';
import { escapeHtml, renderMessagePage, renderPage } from './html.ts';
import { fill, type Language, messagesFor } from './i18n.ts';
import { widgetPath } from '../../features/widget/service.ts';

/** The provider picker: one form, one real <button> per provider (keyboard and screen readers for free). */
export function renderWidget(language: Language, sessionId: string, providers: ResolvedProvider[]): string {
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

export function renderClosedWidget(language: Language, state: 'expired' | 'completed' | 'unknown'): string {
  const m = messagesFor(language);
  if (state === 'expired') return renderMessagePage(language, m.expiredTitle, m.expiredBody);
  if (state === 'completed') return renderMessagePage(language, m.usedTitle, m.usedBody);
  return renderMessagePage(language, m.invalidTitle, m.invalidBody);
}

// The actions of one destination's dashboard page (save URL, enable, disable, test send, delete,
// rotate the signing secret, replay), each a POST that returns to the page's home with a notice,
// and the one-time page that shows a new signing secret. destinations.ts registers them for each
// place a destination's page lives at.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../features/context.ts';
import { invalidParameter } from '../../core/errors.ts';
import type { App } from '../app-type.ts';
import { DASHBOARD_ROUTE, type DeveloperSession, field, fields, type Form, type Guards } from './guard.ts';
import { type NavPage, renderDashboardPage, when } from './layout.ts';
import { html, type SafeHtml } from '../safe-html.ts';

const MAX_REPLAY = 50;

/**
 * Where a destination's page is: by id under the list, or the primary webhook's alias. `home` is
 * where its actions return to.
 */
export type DestinationPlace = {
  route: string;
  nav: NavPage;
  title: string;
  idOf(request: FastifyRequest, developerId: string): string | Promise<string>;
  path(id: string): string;
  home: string;
  /** The audit log's word for what its actions act on. */
  audit: 'destination' | 'webhook';
  /** Saves a webhook's URL (which enables it), as the place's API does. */
  setUrl(developerId: string, id: string, url: string): Promise<{ replayed: number }>;
};

/** Registers the POST actions of the destination page at `place`. */
export function registerDestinationActions(
  scope: App,
  ctx: AppContext,
  guards: Guards,
  place: DestinationPlace,
) {
  const { destinations } = ctx.webhooks;
  /** An action on the place's destination; it returns to the place's home (errors too). */
  const action = (
    name: string,
    run: (
      session: DeveloperSession,
      id: string,
      form: Form,
    ) => Promise<{ notice: string } | { html: SafeHtml }>,
  ) =>
    scope.post(
      `${place.route}/${name}`,
      DASHBOARD_ROUTE,
      guards.developerAction(place.home, async (request, session, form) => {
        const done = await run(session, await place.idOf(request, session.developer.id), form);
        return 'html' in done ? done : { redirect: place.home, notice: done.notice };
      }),
    );

  action('destination', async (session, id, form) => {
    const url = field(form, 'url').trim();
    const result = await place.setUrl(session.developer.id, id, url);
    await ctx.dashboard.audit(session, { action: `${place.audit}.set-url`, target: url });
    return {
      notice: `Destination saved${result.replayed ? `; ${result.replayed} held events are being delivered` : ''}.`,
    };
  });

  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    action(name, async (session, id) => {
      const result = await destinations.update(session.developer.id, id, { enabled });
      await ctx.dashboard.audit(session, { action: `${place.audit}.${name}`, target: id });
      return {
        notice: enabled
          ? `Destination enabled${result.replayed ? `; ${result.replayed} held events are being delivered` : ''}.`
          : 'Destination disabled; its events are held.',
      };
    });
  }

  action('test', async (session, id) => {
    const { eventId } = await destinations.sendTest(session.developer.id, id);
    await ctx.dashboard.audit(session, { action: `${place.audit}.test`, target: eventId });
    return { notice: `Test event ${eventId} queued.` };
  });

  action('delete', async (session, id) => {
    await destinations.remove(session.developer.id, id);
    await ctx.dashboard.audit(session, { action: `${place.audit}.delete`, target: id });
    return { notice: 'Destination deleted.' };
  });

  // The new secret is in this response only: never in a redirect, a cookie or the log.
  action('rotate-secret', async (session, id) => {
    const rotated = await destinations.rotateSecret(session.developer.id, id);
    await ctx.dashboard.audit(session, { action: `${place.audit}.rotate-secret`, target: id });
    return {
      html: secretPage(
        session,
        'New signing secret',
        rotated.secret,
        rotated.previousSecretExpiresAt,
        place.path(id),
      ),
    };
  });

  action('replay', async (session, id, form) => {
    const one = field(form, 'one');
    const ids = one ? [one] : [...new Set(fields(form, 'selected'))];
    if (ids.length === 0) throw invalidParameter('selected', 'pick at least one event to replay');
    if (ids.length > MAX_REPLAY)
      throw invalidParameter('selected', `replay at most ${MAX_REPLAY} events at once`);
    for (const eventId of ids) {
      await destinations.replay(session.developer.id, id, eventId);
      await ctx.dashboard.audit(session, { action: `${place.audit}.replay`, target: eventId });
    }
    return { notice: `${ids.length} event${ids.length === 1 ? '' : 's'} queued again.` };
  });
}

/** A signing secret, shown this once. */
export function secretPage(
  session: DeveloperSession,
  title: string,
  secret: string,
  previousExpires: Date | null,
  back: string,
): SafeHtml {
  const body = html`<section class="card"><h2>${title}</h2><p>Copy its signing secret now: it will not be shown again.</p>
<p class="secret"><code id="new-secret">${secret}</code></p>
${previousExpires ? html`<p class="muted">The previous secret keeps signing until ${when(previousExpires)}.</p>` : ''}
<p><a href="${back}">Back</a></p></section>`;
  return renderDashboardPage({ session, page: 'webhooks', title, body });
}

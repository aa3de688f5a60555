import type { FastifyReply } from 'fastify';
import type { SafeHtml } from '../safe-html.ts';

/**
 * What every hosted page (widget, consent, kit activation) and dashboard page shares: the
 * response headers that keep the page uncached, unframed and free of third-party loads. Pages
 * are built with the `html` tag (../safe-html.ts); this is the one place a page becomes the
 * string that is sent.
 */

/**
 * `formsPostToSelfOnly` adds CSP `form-action 'self'`. Pages whose forms end in a redirect to
 * another origin (the connect flow hands over to the provider and the developer's app) must
 * not set it: browsers apply form-action to those redirects too.
 */
export function sendHostedPage(
  reply: FastifyReply,
  status: number,
  page: SafeHtml,
  options: { formsPostToSelfOnly?: boolean } = {},
) {
  const formAction = options.formsPostToSelfOnly ? " form-action 'self';" : '';
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header(
      'content-security-policy',
      `default-src 'none'; style-src 'unsafe-inline'; img-src 'self';${formAction} frame-ancestors 'none'; base-uri 'none'`,
    )
    .type('text/html; charset=utf-8')
    .send(page.toString());
}

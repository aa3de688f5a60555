import type { FastifyReply } from 'fastify';

/**
 * What every hosted page (widget, consent, kit activation) shares: HTML escaping and the
 * response headers that keep the page uncached, unframed and free of third-party loads.
 */
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/**
 * `formsPostToSelfOnly` adds CSP `form-action 'self'`. Pages whose forms end in a redirect to
 * another origin (the connect flow hands over to the provider and the developer's app) must
 * not set it: browsers apply form-action to those redirects too.
 */
export function sendHostedPage(
  reply: FastifyReply,
  status: number,
  html: string,
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
    .send(html);
}

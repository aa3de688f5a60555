import { createHmac } from 'node:crypto';
import type { TestService } from './app.ts';
import { pathOf } from './connections.ts';

/** The hidden form token of a widget page, if the page has a form. */
export function formToken(html: string): string | undefined {
  return /<input type="hidden" name="csrf_token" value="([^"]+)">/.exec(html)?.[1];
}

/**
 * The token a session's form would carry, for a page that shows no form (expired, completed):
 * derived as the service derives it, so a test can post what a browser kept from earlier.
 */
export function formTokenOf(service: TestService, widgetUrl: string): string {
  const sessionId = pathOf(widgetUrl).split('/').pop() ?? '';
  return createHmac('sha256', service.config.encryptionKey)
    .update(`widget-form:${sessionId.toLowerCase()}`)
    .digest('base64url');
}

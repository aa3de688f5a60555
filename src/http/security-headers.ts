// Headers every answer carries, whatever route (or error) produced it.
// - `x-content-type-options: nosniff`: a browser must not guess a type for a download or an
//   answer (a user's uploaded file, a JSON body read as HTML).
// - `strict-transport-security` when the request came over HTTPS: directly, or through a proxy
//   the app trusts (TRUST_PROXY) that says so in x-forwarded-proto. Over plain HTTP it means
//   nothing (RFC 6797 §7.2: a UA ignores it there) and would only mislead.
import type { App } from './app-type.ts';

/** One year: browsers keep to HTTPS for this host that long after a visit. */
export const HSTS_VALUE = 'max-age=31536000';

export function registerSecurityHeaders(app: App) {
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    // request.protocol reads x-forwarded-proto only when trustProxy is set.
    if (request.protocol === 'https') reply.header('strict-transport-security', HSTS_VALUE);
    done(null, payload);
  });
}

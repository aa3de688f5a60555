/**
 * The redirect URI Tributary registers with every OAuth provider. One definition, because the
 * provider side (registered URIs, the sandbox's own check) and the callback route must agree.
 */
export const CALLBACK_ROUTE = '/v2/auth/callback/:provider';

export function oauthCallbackUrl(publicUrl: string, providerId: string): string {
  return `${publicUrl}/v2/auth/callback/${providerId}`;
}

/**
 * The languages of the hosted pages. Services carry a user's language through flows (auth links,
 * widget sessions); only the HTTP edge holds the texts (`http/hosted/i18n.ts`).
 * Unknown languages fall back to English, region tags to their language (`pt-BR` -> `pt`).
 */
export const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'ja'] as const;
export type Language = (typeof LANGUAGES)[number];

export function isLanguage(value: string): value is Language {
  return (LANGUAGES as readonly string[]).includes(value);
}

/** `de-CH` -> `de`; anything unknown (or nothing) -> `en`. */
export function resolveLanguage(requested: string | null | undefined): Language {
  const primary = (requested ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return isLanguage(primary) ? primary : 'en';
}

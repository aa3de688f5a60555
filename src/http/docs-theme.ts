// The API reference at /docs: Swagger UI (served from the package, so it works offline) in
// Tributary's look instead of the framework's: our wordmark in place of its logo, the hosted
// pages' blue and system fonts, our favicon and title. The specification is the same
// /openapi.json; only the page around it changes.

/** A wordmark drawn in SVG: no font or image to fetch. */
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="230" height="36" viewBox="0 0 230 36" role="img" aria-label="Tributary">
<path d="M6 30 C10 18 14 14 18 6 M18 6 C20 14 24 18 30 30 M12 20 C16 22 20 22 24 20" fill="none" stroke="#ffffff" stroke-width="3" stroke-linecap="round"/>
<text x="40" y="25" font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif" font-size="20" font-weight="700" fill="#ffffff">Tributary API</text>
</svg>`;

const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1a56db"/>
<path d="M7 26 C10 17 13 13 16 6 M16 6 C18 13 21 17 25 26 M11 18 C14 20 18 20 21 18" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>`;

const THEME_CSS = `
body{margin:0;background:#f4f5f7;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
.swagger-ui,.swagger-ui .info .title,.swagger-ui .opblock-tag,.swagger-ui .opblock .opblock-summary-description{font-family:inherit}
.swagger-ui .topbar{background:#1a56db;padding:.6rem 0}
.swagger-ui .topbar .download-url-wrapper{display:none}
.swagger-ui .topbar-wrapper img{height:36px}
.swagger-ui .info .title small.version-stamp{background:#1a56db}
.swagger-ui .btn.authorize{color:#1a56db;border-color:#1a56db}
.swagger-ui .btn.authorize svg{fill:#1a56db}
.swagger-ui .opblock.opblock-get .opblock-summary-method{background:#1a56db}
.swagger-ui .opblock.opblock-get{border-color:#1a56db;background:rgba(26,86,219,.06)}
.swagger-ui .scheme-container{box-shadow:none;border-bottom:1px solid #d0d5dd}
.swagger-ui section.models{border-radius:16px}
`;

export const DOCS_TITLE = 'Tributary API reference';

/** The options @fastify/swagger-ui takes for the look of /docs. */
export const docsTheme = {
  theme: {
    title: DOCS_TITLE,
    css: [{ filename: 'tributary.css', content: THEME_CSS }],
    favicon: [
      {
        filename: 'favicon.svg',
        rel: 'icon',
        sizes: 'any',
        type: 'image/svg+xml',
        content: Buffer.from(FAVICON_SVG),
      },
    ],
  },
  logo: { type: 'image/svg+xml', content: Buffer.from(LOGO_SVG), href: '/docs', target: '_self' as const },
};

import type { FastifyReply } from 'fastify';
import { html, type SafeHtml, trustedHtml } from '../safe-html.ts';
import type { Language } from './i18n.ts';

// Widget and consent pages import these from here with the rest of the page shell.
export { sendHostedPage } from './page.ts';

/**
 * The shell of every hosted page (widget, consent, outcome pages): server-rendered, one inline
 * stylesheet, no scripts and nothing loaded from another origin, so the pages work anywhere
 * and leak nothing to third parties.
 */

const STYLES = trustedHtml(`
*,*::before,*::after{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Hiragino Sans",sans-serif;
background:#f4f5f7;color:#1c1e21;line-height:1.5}
main{max-width:28rem;margin:0 auto;padding:1.5rem 1rem 2rem}
.card{background:#fff;border-radius:16px;box-shadow:0 1px 3px rgba(0,0,0,.12);padding:1.5rem}
h1{font-size:1.35rem;line-height:1.3;margin:0 0 .5rem}
p{margin:.5rem 0}
.muted{color:#5a6270;font-size:.9rem}
.error{color:#b42318;font-weight:600}
ul.providers{list-style:none;margin:1.25rem 0 0;padding:0;display:grid;gap:.6rem}
.provider-button{display:flex;align-items:center;gap:.85rem;width:100%;min-height:3.5rem;padding:.6rem .9rem;
font:inherit;font-weight:600;text-align:start;color:inherit;background:#fff;border:1px solid #d0d5dd;border-radius:12px;
cursor:pointer;text-decoration:none}
.provider-button:hover{background:#f0f4ff;border-color:#7b8ff7}
.provider-button img{width:2.5rem;height:2.5rem;flex:none;border-radius:10px}
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid #1a56db;outline-offset:2px}
.actions{display:flex;gap:.75rem;margin-top:1.25rem;flex-wrap:wrap}
.actions button{flex:1 1 8rem;min-height:3rem;font:inherit;font-weight:600;border-radius:10px;cursor:pointer;padding:.5rem 1rem}
.primary{background:#1a56db;color:#fff;border:1px solid #1a56db}
.primary:hover{background:#1446b8}
.secondary{background:#fff;color:#1c1e21;border:1px solid #98a2b3}
label{display:block;font-weight:600;margin-top:1rem}
input[type=text]{width:100%;font:inherit;padding:.55rem .7rem;margin-top:.3rem;border:1px solid #98a2b3;border-radius:8px}
.scopes{display:flex;flex-wrap:wrap;gap:.35rem;padding:0;list-style:none}
.scopes li{background:#eef1f6;border-radius:999px;padding:.1rem .6rem;font-size:.85rem}
.header{display:flex;align-items:center;gap:.85rem;margin-bottom:.75rem}
.header img{width:3rem;height:3rem;border-radius:12px}
@media (prefers-color-scheme:dark){body{background:#15171a;color:#e7e9ec}.card{background:#1f2226;box-shadow:none}
.provider-button,.secondary{background:#1f2226;color:#e7e9ec;border-color:#454b54}.provider-button:hover{background:#262b36}
.muted{color:#a3aab5}.scopes li{background:#2b3038}input[type=text]{background:#15171a;color:#e7e9ec}}
`);

export function renderPage(options: { language: Language; title: string; body: SafeHtml }): SafeHtml {
  return html`<!doctype html>
<html lang="${options.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${options.title}</title>
<style>${STYLES}</style>
</head>
<body>
<main>
${options.body}
</main>
</body>
</html>`;
}

/** A title and one paragraph: the outcome and error pages. */
export function renderMessagePage(language: Language, title: string, body: string): SafeHtml {
  return renderPage({
    language,
    title,
    body: html`<div class="card" role="status"><h1>${title}</h1><p>${body}</p></div>`,
  });
}

/** Redirects leaving a hosted flow carry the same no-cache / no-referrer rules. */
export function sendHostedRedirect(reply: FastifyReply, location: string, status: 302 | 303 = 303) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('location', location)
    .send();
}

/** Parses HTML form posts inside one plugin scope; no extra package for a dozen fields. */
export function formBodyParser(
  _request: unknown,
  body: string,
  done: (error: Error | null, value?: Record<string, string>) => void,
) {
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(body)) fields[name] ??= value;
  done(null, fields);
}

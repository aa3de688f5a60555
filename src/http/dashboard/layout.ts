import type { DashboardSession } from '../../features/dashboard/service.ts';
import { html, type HtmlValue, type SafeHtml, trustedHtml } from '../safe-html.ts';

/**
 * The dashboard's page shell: server-rendered HTML with one inline stylesheet and no script, in
 * the hosted pages' look (system fonts, cards, the same blue), wider for tables, with dark mode
 * by prefers-color-scheme. Confirmations and reveals use <details>, so every control works from
 * the keyboard and without JavaScript. Every page is built with the `html` tag (../safe-html.ts).
 */
const STYLES = trustedHtml(`
*,*::before,*::after{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;background:#f4f5f7;color:#1c1e21;line-height:1.5}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem .6rem;padding:.75rem 1.25rem;background:#fff;border-bottom:1px solid #d0d5dd}
header.top .brand{font-weight:700;font-size:1.1rem}
header.top .who{font-size:.9rem;max-width:11rem;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
header.top button{white-space:nowrap;padding:.3rem .75rem;min-height:2.25rem}
nav ul{display:flex;flex-wrap:wrap;gap:.25rem;list-style:none;margin:0;padding:0}
nav a{display:block;padding:.35rem .55rem;border-radius:8px;color:inherit;text-decoration:none;font-weight:600;white-space:nowrap}
nav a:hover{background:#eef1f6}nav a[aria-current=page]{background:#1a56db;color:#fff}
.spacer{flex:1}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:.5rem;background:#fff;padding:.3rem .6rem;border-radius:8px;z-index:1}
.badge{display:inline-block;border-radius:999px;padding:.1rem .65rem;font-size:.8rem;font-weight:700;text-transform:uppercase;letter-spacing:.03em}
.env-sandbox{background:#fff4d6;color:#7a4b00;border:1px solid #e0b341}
.env-production{background:#fde2e1;color:#8a1c17;border:1px solid #e2746e}
.env-operator{background:#e6e0fa;color:#3d2a86;border:1px solid #9d8ce0}
main{max-width:72rem;margin:0 auto;padding:1.25rem 1rem 3rem}
.card{background:#fff;border-radius:16px;box-shadow:0 1px 3px rgba(0,0,0,.12);padding:1.25rem;margin:0 0 1rem;overflow-x:auto}
.narrow{max-width:28rem;margin:2rem auto}
.grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(20rem,1fr))}
h1{font-size:1.4rem;margin:0 0 1rem}h2{font-size:1.1rem;margin:0 0 .75rem}h3{font-size:1rem;margin:1rem 0 .5rem}
p{margin:.5rem 0}.muted{color:#5a6270;font-size:.9rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #e4e7ec;vertical-align:top}
th{font-weight:600;color:#5a6270}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem;word-break:break-all}
label{display:block;font-weight:600;margin-top:.75rem}
input[type=text],input[type=password],input[type=url],input[type=number],input[type=datetime-local],select{font:inherit;padding:.45rem .6rem;margin-top:.25rem;border:1px solid #98a2b3;border-radius:8px;background:#fff;color:inherit;max-width:100%}
.narrow input{width:100%}
button{font:inherit;font-weight:600;border-radius:10px;cursor:pointer;padding:.45rem .9rem;min-height:2.5rem}
.primary{background:#1a56db;color:#fff;border:1px solid #1a56db}.primary:hover{background:#1446b8}
.secondary{background:#fff;color:#1c1e21;border:1px solid #98a2b3}
.danger{background:#b42318;color:#fff;border:1px solid #b42318}
a{color:#1a56db}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid #1a56db;outline-offset:2px}
form.inline{display:inline}
.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
.row label{margin-top:0}
.notice{border-left:4px solid #12805c;background:#e7f6ef;padding:.6rem .9rem;border-radius:8px;margin-bottom:1rem}
.error{border-left:4px solid #b42318;background:#fde8e7;padding:.6rem .9rem;border-radius:8px;margin-bottom:1rem}
.secret{background:#fff8e1;border:1px dashed #e0b341;padding:.6rem .9rem;border-radius:8px}
.status{display:inline-block;border-radius:999px;padding:0 .5rem;font-size:.8rem;background:#eef1f6}
.s-ok{background:#dcf3e7;color:#0b5e3f}.s-warn{background:#fff1cc;color:#7a4b00}.s-bad{background:#fde2e1;color:#8a1c17}
details{margin:.25rem 0}summary{cursor:pointer;font-weight:600}
.chart text{font-size:11px;fill:currentColor}.bar-ok{fill:#1a56db}.bar-bad{fill:#d92d20}.bar-muted{fill:#98a2b3}
.stat{font-size:1.8rem;font-weight:700}
@media (prefers-color-scheme:dark){body{background:#15171a;color:#e7e9ec}header.top,.card{background:#1f2226;box-shadow:none;border-color:#30353c}
nav a:hover{background:#2b3038}.muted,th{color:#a3aab5}th,td{border-color:#30353c}.secondary{background:#1f2226;color:#e7e9ec;border-color:#454b54}
input[type=text],input[type=password],input[type=url],input[type=number],input[type=datetime-local],select{background:#15171a;color:#e7e9ec;border-color:#454b54}
a{color:#8fb0ff}.status{background:#2b3038}.notice{background:#12372a}.error{background:#3d1715}.secret{background:#3a2f10}
.env-sandbox{background:#3a2f10;color:#ffd27a}.env-production{background:#3d1715;color:#ffb3ad}.env-operator{background:#2a2345;color:#cfc2ff}
.s-ok{background:#12372a;color:#9be2c3}.s-warn{background:#3a2f10;color:#ffd27a}.s-bad{background:#3d1715;color:#ffb3ad}}
`);

export type NavPage =
  | 'overview'
  | 'users'
  | 'webhooks'
  | 'destinations'
  | 'providers'
  | 'keys'
  | 'orders'
  | 'developers'
  | 'quarantine'
  | 'provider-settings';

const DEVELOPER_NAV: [NavPage, string, string][] = [
  ['overview', 'Overview', '/dashboard'],
  ['users', 'Users', '/dashboard/users'],
  ['webhooks', 'Webhooks', '/dashboard/webhooks'],
  ['destinations', 'Destinations', '/dashboard/destinations'],
  ['providers', 'Providers', '/dashboard/providers'],
  ['keys', 'API keys', '/dashboard/keys'],
  ['orders', 'Orders', '/dashboard/orders'],
];

/** The form token every post carries. */
export const csrfField = (session: DashboardSession): SafeHtml =>
  html`<input type="hidden" name="csrf" value="${session.csrfToken}">`;

/** A one-button form posting to `action` (with the form token and hidden fields). */
export function postButton(
  session: DashboardSession,
  action: string,
  label: string,
  options: { fields?: Record<string, string>; style?: 'primary' | 'secondary' | 'danger' } = {},
): SafeHtml {
  const hidden = Object.entries(options.fields ?? {}).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return html`<form class="inline" method="post" action="${action}">${csrfField(session)}${hidden}<button type="submit" class="${options.style ?? 'secondary'}">${label}</button></form>`;
}

/** A destructive action behind a disclosure: the first activation only reveals the real button. */
export function confirmButton(
  session: DashboardSession,
  action: string,
  label: string,
  question: string,
  fields: Record<string, string> = {},
): SafeHtml {
  return html`<details><summary>${label}\u2026</summary><p>${question}</p>${postButton(session, action, `Confirm: ${label}`, { fields, style: 'danger' })}</details>`;
}

/**
 * Every moment the dashboard shows, in one format: `2026-11-27 21:04:05 UTC`, to the second, in a
 * <time> carrying the exact value. Takes a Date or a wire timestamp (microseconds and an offset,
 * `2026-11-27T21:04:05.123000+00:00`); text that is not a moment is shown as it is.
 */
export function when(at: Date | string | null | undefined): SafeHtml {
  if (at === null || at === undefined || at === '') return html`\u2014`;
  const moment = typeof at === 'string' ? new Date(at) : at;
  if (Number.isNaN(moment.getTime())) return html`${String(at)}`;
  const iso = moment.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

export function statusPill(text: string, tone: 'ok' | 'warn' | 'bad' | 'plain' = 'plain'): SafeHtml {
  return html`<span class="status${tone !== 'plain' && ` s-${tone}`}">${text}</span>`;
}

export type Flash = { notice?: string | undefined; error?: string | undefined };

function flashHtml(flash: Flash): SafeHtml {
  return html`${flash.notice && html`<div class="notice" role="status">${flash.notice}</div>`}${
    flash.error && html`<div class="error" role="alert">${flash.error}</div>`
  }`;
}

function shell(title: string, header: HtmlValue, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} \u00b7 Tributary dashboard</title>
<style>${STYLES}</style>
</head>
<body>
${header}
<main id="main">
${body}
</main>
</body>
</html>`;
}

/** A signed-in page: navigation, environment badge, sign-out, then the content. */
export function renderDashboardPage(options: {
  session: DashboardSession;
  page: NavPage;
  title: string;
  body: SafeHtml;
  flash?: Flash;
}): SafeHtml {
  const { session } = options;
  let links: [NavPage, string, string][];
  let badge: SafeHtml;
  let who: SafeHtml;
  if (session.kind === 'developer') {
    const developer = session.developer;
    links = DEVELOPER_NAV.filter(([page]) => page !== 'orders' || developer.orderApiAccess);
    badge = html`<span class="badge env-${developer.environment}" title="Environment">${developer.environment}</span>`;
    // A long name is cut short (the whole of it in the tooltip) rather than push "Sign out" down.
    who = html`<span class="who" title="${developer.name}, developer ID ${developer.id}">${developer.name}</span>`;
  } else {
    links = [
      ['developers', 'Developers', '/dashboard/operator'],
      ['provider-settings', 'Providers', '/dashboard/operator/providers'],
      ['quarantine', 'Quarantined jobs', '/dashboard/operator/jobs'],
    ];
    badge = html`<span class="badge env-operator">operator</span>`;
    who = html`<span class="muted">all developers</span>`;
  }
  const nav = links.map(
    ([page, label, href]) =>
      html`<li><a href="${href}"${page === options.page && html` aria-current="page"`}>${label}</a></li>`,
  );
  const header = html`<a class="skip" href="#main">Skip to content</a><header class="top"><span class="brand">Tributary</span>${badge}<nav aria-label="Dashboard"><ul>${nav}</ul></nav><span class="spacer"></span>${who}${postButton(session, '/dashboard/sign-out', 'Sign out')}</header>`;
  return shell(
    options.title,
    header,
    html`<h1>${options.title}</h1>${flashHtml(options.flash ?? {})}${options.body}`,
  );
}

/** The sign-in page (developer, and operator when OPERATOR_TOKEN is set). */
export function renderSignIn(options: {
  formToken: string;
  operatorEnabled: boolean;
  error?: string;
  devId?: string;
}): SafeHtml {
  const operator =
    options.operatorEnabled &&
    html`<details class="card"><summary>Operator sign-in</summary>
<form method="post" action="/dashboard/operator/sign-in">
<input type="hidden" name="csrf" value="${options.formToken}">
<label for="operator_token">Operator token</label>
<input id="operator_token" name="operator_token" type="password" autocomplete="off" required>
<p><button type="submit" class="secondary">Sign in as operator</button></p>
</form></details>`;
  return shell(
    'Sign in',
    '',
    html`<div class="narrow"><div class="card"><h1>Tributary dashboard</h1>
${flashHtml({ error: options.error })}
<form method="post" action="/dashboard/sign-in">
<input type="hidden" name="csrf" value="${options.formToken}">
<label for="dev_id">Developer ID</label>
<input id="dev_id" name="dev_id" type="text" autocomplete="username" required value="${options.devId ?? ''}">
<label for="api_key">API key</label>
<input id="api_key" name="api_key" type="password" autocomplete="current-password" required>
<p><button type="submit" class="primary">Sign in</button></p>
<p class="muted">The key is checked once; the browser keeps only a session cookie, which ends on sign-out or when the key is revoked.</p>
</form></div>${operator}</div>`,
  );
}

export function renderStandalone(title: string, message: string): SafeHtml {
  return shell(
    title,
    '',
    html`<div class="narrow card"><h1>${title}</h1><p>${message}</p><p><a href="/dashboard">Go to sign-in</a></p></div>`,
  );
}

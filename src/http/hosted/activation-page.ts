// The hosted kit-activation page: what the QR code on a kit opens. Server-rendered HTML with one
// inline stylesheet, no scripts, no developer credential anywhere; the form posts back here and the
// answer is another page (success, already activated, or the form again with its errors).
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../features/context.ts';
import { AppError } from '../../core/errors.ts';
import type { App } from '../app-type.ts';
import type { HostedLimits } from './limits.ts';
import { wantsHtml } from './limits.ts';
import { html, type HtmlValue, joinHtml, type SafeHtml, trustedHtml } from '../safe-html.ts';
import { sendHostedPage } from './page.ts';

const STYLES = trustedHtml(`*,*::before,*::after{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1c1e21;line-height:1.5}
main{max-width:34rem;margin:0 auto;padding:1.5rem 1rem 2rem}
.card{background:#fff;border-radius:16px;box-shadow:0 1px 3px rgba(0,0,0,.12);padding:1.5rem}
h1{font-size:1.4rem;margin:0 0 .5rem}fieldset{border:0;margin:1.25rem 0 0;padding:0}
legend{font-weight:700;font-size:1.05rem;padding:0}label{display:block;font-weight:600;margin-top:.85rem}
input,select{width:100%;font:inherit;padding:.55rem .7rem;margin-top:.25rem;border:1px solid #8a94a6;border-radius:8px;background:#fff;color:inherit}
input[aria-invalid=true]{border-color:#b42318;border-width:2px}.hint{display:block;color:#5a6270;font-size:.9rem}
.field-error{color:#b42318;font-size:.9rem;margin:.2rem 0 0}.errors{border:2px solid #b42318;border-radius:10px;padding:.75rem 1rem;margin:1rem 0}
.errors h2{font-size:1rem;margin:0}.errors ul{margin:.4rem 0 0;padding-left:1.2rem}
.row{display:grid;grid-template-columns:1fr 1fr;gap:0 .75rem}
button{margin-top:1.5rem;width:100%;min-height:3rem;font:inherit;font-weight:700;color:#fff;background:#1a56db;border:0;border-radius:10px;cursor:pointer}
button:hover{background:#1446b8}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #1a56db;outline-offset:2px}
.kit{font-family:ui-monospace,monospace;font-weight:700}
@media (prefers-color-scheme:dark){body{background:#15171a;color:#e7e9ec}.card{background:#1f2226;box-shadow:none}
input,select{background:#15171a;border-color:#5b6472}.hint{color:#a3aab5}}`);

function page(title: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${STYLES}</style>
</head>
<body><main><div class="card">${body}</div></main></body>
</html>`;
}

/** Never cached or framed; the kit id in the URL is a secret, so no Referer goes onward. */
function send(reply: FastifyReply, status: number, body: SafeHtml) {
  return sendHostedPage(reply, status, body, { formsPostToSelfOnly: true });
}

type Field = {
  name: string;
  label: string;
  type?: string;
  autocomplete?: string;
  required?: boolean;
  hint?: string;
  maxLength?: number;
};

const PERSON: Field[] = [
  { name: 'first_name', label: 'First name', autocomplete: 'given-name', required: true },
  { name: 'last_name', label: 'Last name', autocomplete: 'family-name', required: true },
  { name: 'email', label: 'Email', type: 'email', autocomplete: 'email', required: true },
  {
    name: 'phone_number',
    label: 'Phone number',
    type: 'tel',
    autocomplete: 'tel',
    required: true,
    hint: 'With country code, e.g. +14155552671',
  },
  { name: 'date_of_birth', label: 'Date of birth', type: 'date', autocomplete: 'bday', required: true },
];
const ADDRESS: Field[] = [
  { name: 'address_line_1', label: 'Address line 1', autocomplete: 'address-line1', required: true },
  { name: 'address_line_2', label: 'Address line 2', autocomplete: 'address-line2', hint: 'Optional' },
  { name: 'city', label: 'City', autocomplete: 'address-level2', required: true },
  {
    name: 'administrative_area',
    label: 'State, county or region',
    autocomplete: 'address-level1',
    hint: 'Optional',
  },
  { name: 'postal_code', label: 'Postal code', autocomplete: 'postal-code', required: true },
  {
    name: 'country_code',
    label: 'Country code',
    autocomplete: 'country',
    required: true,
    hint: 'Two letters, e.g. US',
    maxLength: 2,
  },
];

type FormState = { values: Record<string, string>; errors: Record<string, string> };

function input(field: Field, state: FormState): SafeHtml {
  const id = `f-${field.name}`;
  const error = state.errors[field.name];
  const described = [field.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  // The hint sits outside the label and is linked by aria-describedby, so the field's name stays short.
  return html`<label for="${id}">${field.label}</label>${field.hint && html`<span class="hint" id="${id}-hint">${field.hint}</span>`}
<input id="${id}" name="${field.name}" type="${field.type ?? 'text'}" value="${state.values[field.name] ?? ''}"${field.autocomplete && html` autocomplete="${field.autocomplete}"`}${field.required && html` required`}${error && html` aria-invalid="true"`}${described && html` aria-describedby="${described}"`}${field.maxLength !== undefined && html` maxlength="${field.maxLength}"`}>
${error && html`<p class="field-error" id="${id}-error">${error}</p>`}`;
}

function renderForm(state: FormState): SafeHtml {
  const errors = Object.entries(state.errors);
  const summary =
    errors.length > 0 &&
    html`<div class="errors" role="alert"><h2>Please check the form</h2><ul>${errors.map(
      ([name, message]) => html`<li><a href="#f-${name}">${message}</a></li>`,
    )}</ul></div>`;
  const sex = state.values.gender_at_birth ?? '';
  const option = (value: string, label: string) =>
    html`<option value="${value}"${sex === value && html` selected`}>${label}</option>`;
  return page(
    'Activate your test kit',
    html`<h1>Activate your test kit</h1>
<p>Activate the kit before you collect your sample, so the lab can match it to you.</p>${summary}
<form method="post" action="/activate" novalidate>
${input({ name: 'kit_id', label: 'Kit ID', required: true, autocomplete: 'off', hint: 'Printed on the kit, e.g. KIT-AB12-CD34-EF56-GH78' }, state)}
<fieldset><legend>About you (the person taking the test)</legend>
${joinHtml(
  PERSON.map((field) => input(field, state)),
  '\n',
)}
<label for="f-gender_at_birth">Sex at birth</label>
<select id="f-gender_at_birth" name="gender_at_birth" required${state.errors.gender_at_birth && html` aria-invalid="true"`}>${option('', 'Choose…')}${option('female', 'Female')}${option('male', 'Male')}</select>
</fieldset>
<fieldset><legend>Where you are taking the sample</legend>
${joinHtml(
  ADDRESS.map((field) => input(field, state)),
  '\n',
)}
${input({ name: 'collection_date', label: 'Collection date', type: 'date', hint: 'Optional; today if empty' }, state)}
</fieldset>
<button type="submit">Activate kit</button>
</form>`,
  );
}

function message(title: string, text: HtmlValue, role: 'status' | 'alert' = 'status'): SafeHtml {
  return page(title, html`<div role="${role}"><h1>${title}</h1><p>${text}</p></div>`);
}

/** The form's flat fields as the ActivationContextDTO the API takes. */
function toActivation(fields: Record<string, string>) {
  const pick = (names: string[]) =>
    Object.fromEntries(names.flatMap((name) => (fields[name]?.trim() ? [[name, fields[name].trim()]] : [])));
  return {
    supplier_kit_id: fields.kit_id ?? '',
    ...(fields.collection_date?.trim() ? { collection_date: fields.collection_date.trim() } : {}),
    address: pick(ADDRESS.map((field) => field.name)),
    recipient: pick([...PERSON.map((field) => field.name), 'gender_at_birth']),
  };
}

/** `recipient.email` -> `email`: API field paths back to form field names. */
function formErrors(error: AppError): Record<string, string> {
  const list = (error.extensions.invalid_fields ?? []) as { field: string; message: string }[];
  const errors: Record<string, string> = {};
  for (const issue of list) {
    const name = issue.field.replace(/^(recipient|address)\./, '').replace(/^supplier_kit_id$/, 'kit_id');
    const text = issue.message.replace(/^(recipient|address)\./, '').replaceAll('_', ' ');
    errors[name] ??= text.charAt(0).toUpperCase() + text.slice(1);
  }
  return Object.keys(errors).length ? errors : { kit_id: error.message };
}

function parseForm(
  _request: unknown,
  body: string,
  done: (error: Error | null, value?: Record<string, string>) => void,
) {
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(body)) fields[name] ??= value.slice(0, 500);
  done(null, fields);
}

const UNAVAILABLE = () =>
  message(
    'This page is not available',
    'Kit activation is not available right now. Please contact the service that sent you the kit.',
    'alert',
  );

export async function registerActivationPages(app: App, ctx: AppContext, limits: HostedLimits) {
  await app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 16_384 },
      parseForm,
    );
    const hosted = { config: { auth: 'none' as const }, schema: { hide: true } as object };

    // The reference QR codes open /api/v1/orders/activate; our own kits print /activate.
    for (const path of ['/activate', '/api/v1/orders/activate']) {
      scope.get(path, hosted, async (request, reply) => {
        const kitId = String((request.query as Record<string, unknown>).kit_id ?? '').slice(0, 64);
        const state = kitId ? await ctx.orders.kitState(kitId) : 'unknown';
        if (state === 'unavailable') return send(reply, 403, UNAVAILABLE());
        if (state === 'activated') {
          return send(
            reply,
            200,
            message(
              'Kit already activated',
              html`Kit <span class="kit">${kitId}</span> has already been activated. There is nothing more to do here.`,
            ),
          );
        }
        return send(reply, 200, renderForm({ values: { kit_id: kitId }, errors: {} }));
      });
    }

    // Each post tries a kit id: limited per sender, like every hosted action.
    scope.post('/activate', hosted, async (request, reply) => {
      const fields = (request.body ?? {}) as Record<string, string>;
      const busy = await limits.admit(request);
      if (busy) {
        for (const [name, value] of Object.entries(busy.headers)) reply.header(name, value);
        if (!wantsHtml(request)) throw busy;
        return send(
          reply,
          429,
          message('Too many attempts', 'Please wait a few minutes, then try again.', 'alert'),
        );
      }
      try {
        const result = await ctx.orders.activate(toActivation(fields), { anonymous: true });
        return send(
          reply,
          200,
          message(
            'Kit activated',
            html`Kit <span class="kit">${result.kit_id}</span> is activated. You can now collect your sample and send it to the lab.`,
          ),
        );
      } catch (error) {
        if (!(error instanceof AppError)) {
          request.log.error({ err: error }, 'kit activation failed');
          return send(
            reply,
            500,
            message('Something went wrong', 'Please try again in a few minutes.', 'alert'),
          );
        }
        if (error.extensions.reason === 'unavailable') return send(reply, 403, UNAVAILABLE());
        if (error.status === 409 && error.extensions.reason === 'already_activated') {
          return send(
            reply,
            409,
            message('Kit already activated', `${error.message}. There is nothing more to do here.`, 'alert'),
          );
        }
        if (error.status === 409)
          return send(
            reply,
            409,
            message(
              'Kit not ready yet',
              `${error.message}. Please try again once the kit has arrived.`,
              'alert',
            ),
          );
        const errors =
          error.status === 404
            ? { kit_id: 'We could not find a kit with this ID. Check it against the kit.' }
            : formErrors(error);
        return send(reply, error.status, renderForm({ values: fields, errors }));
      }
    });
  });
}

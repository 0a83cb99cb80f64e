// Settings: profile (time zone, day start, language, currency, reminder times), devices (a key
// shown once, a pairing code, revoke), webhooks (add, test, recent deliveries, remove), recent
// reminders, password, signing out everywhere, and your data (download it all, or erase the
// account for good).
import * as A from './api.js';
import { h, card, empty, field, input, select, showProblem, formError, values, badge, reportError, toast } from './ui.js';

const { t } = A;

export async function renderSettings(root, ctx) {
  const [me, devices, webhooks, reminders] = await Promise.all([
    A.api('GET', '/me', undefined, { withHeaders: true }), A.get('/devices?limit=100'), A.get('/webhooks'),
    A.get('/reminders?status=all&limit=10').catch(() => ({ items: [] }))]);
  const user = me.json;
  root.append(h('h1', { class: 'page-title' }, t('dash.nav.settings')));

  const profile = h('form', { class: 'card form-card', novalidate: true }, h('h2', {}, t('dash.settings.profile')), formError(),
    h('div', { class: 'row' },
      field('dash.your_name', input({ value: user.name }), { name: 'name' }),
      field('dash.timezone', input({ value: user.timezone }), { name: 'timezone' }),
      field('dash.settings.language', select(['en', 'ru', 'sr'].map((l) => [l, t(`dash.language.${l}`)]), user.language), { name: 'language' })),
    h('div', { class: 'row' },
      field('dash.settings.day_start', input({ type: 'number', min: 0, max: 23, value: user.day_start_hour }), { name: 'day_start_hour' }),
      field('dash.settings.currency', input({ value: user.currency, class: 'short', maxLength: 3 }), { name: 'currency' }),
      field('dash.settings.morning', input({ type: 'time', value: user.reminders.morning_time }), { name: 'morning_time' }),
      field('dash.settings.evening', input({ type: 'time', value: user.reminders.evening_time }), { name: 'evening_time' })),
    h('button', { type: 'submit', class: 'primary' }, t('dash.save')));
  profile.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = values(profile);
    const body = { name: v.name, timezone: v.timezone, language: v.language, day_start_hour: Number(v.day_start_hour), currency: (v.currency || '').toUpperCase(),
      reminders: { morning_time: v.morning_time, evening_time: v.evening_time } };
    try {
      const next = await A.api('PATCH', '/me', body, { ifMatch: me.headers.get('ETag') || `"${user.version}"` });
      A.setUser(next);
      toast(t('dash.saved'));
      if (next.language !== user.language) {
        await A.loadLabels(next.language);
        window.dispatchEvent(new Event('lifelog:labels'));
      } else ctx.refresh();
    } catch (error) { showProblem(profile, error); }
  });
  root.append(profile);

  // Devices
  const shown = h('div', { class: 'secret', role: 'status' });
  const deviceForm = h('form', { class: 'inline-form', novalidate: true }, formError(),
    field('dash.name', input({ required: true }), { name: 'name' }),
    field('dash.settings.device_kind', select(['watch', 'ring', 'phone', 'scale', 'app', 'automation', 'other'].map((k) => [k, k]), 'phone'), { name: 'kind' }),
    h('button', { type: 'submit' }, t('dash.settings.device_new')));
  deviceForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = values(deviceForm);
    try {
      const device = await A.api('POST', '/devices', { name: v.name ?? '', kind: v.kind });
      shown.replaceChildren(h('p', {}, t('dash.settings.key_once')), h('code', {}, device.api_key));
      deviceForm.reset();
    } catch (error) { showProblem(deviceForm, error); }
  });
  const pair = h('button', { type: 'button', onclick: async () => {
    try { const code = await A.api('POST', '/devices/pairing-codes'); shown.replaceChildren(h('p', {}, t('dash.settings.pairing_code', { code: code.code }))); }
    catch (error) { reportError(error); }
  } }, t('dash.settings.pairing'));
  root.append(card('dash.settings.devices',
    devices.items.length ? h('ul', { class: 'items' }, devices.items.map((d) => h('li', { class: 'item' },
      h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, d.name), h('span', { class: 'muted' }, [d.kind, d.last_used_local ? t('dash.settings.last_used', { time: d.last_used_local }) : null].filter(Boolean).join(' · '))),
      h('button', { type: 'button', class: 'danger', onclick: async () => {
        try { await A.api('DELETE', `/devices/${d.id}`); ctx.refresh(); } catch (error) { reportError(error); }
      } }, t('dash.settings.revoke', { name: d.name }))))) : empty(),
    deviceForm, pair, shown));

  // Webhooks
  const hookShown = h('div', { class: 'secret', role: 'status' });
  const hookForm = h('form', { class: 'inline-form', novalidate: true }, formError(),
    field('dash.settings.webhook_url', input({ type: 'url', required: true, placeholder: 'https://' }), { name: 'url' }),
    field('dash.settings.webhook_events', input({ value: 'reminder.*' }), { name: 'events' }),
    h('button', { type: 'submit' }, t('dash.settings.webhook_add')));
  hookForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = values(hookForm);
    try {
      const hook = await A.api('POST', '/webhooks', { url: v.url ?? '', events: (v.events || '').split(',').map((x) => x.trim()).filter(Boolean) });
      hookShown.replaceChildren(h('p', {}, t('dash.settings.webhook_secret', { secret: hook.secret })));
      ctx.refresh();
    } catch (error) { showProblem(hookForm, error); }
  });
  const hooks = webhooks.items || [];
  root.append(card('dash.settings.webhooks', hooks.length ? h('ul', { class: 'items' }, hooks.map((w) => {
    const result = h('span', { class: 'muted', role: 'status' });
    const history = h('div', { class: 'habit-details' });
    return h('li', { class: 'item' }, h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, w.url), h('span', { class: 'muted' }, (w.events || []).join(', ')), result),
      h('button', { type: 'button', onclick: async () => {
        try { const r = await A.api('POST', `/webhooks/${w.id}/test`); result.textContent = t('dash.settings.webhook_result', { status: r.delivered ? `${r.status}` : (r.error || r.status || '') }); }
        catch (error) { reportError(error); }
      } }, t('dash.settings.webhook_test', { name: w.url })),
      h('button', { type: 'button', 'aria-expanded': 'false', onclick: (e) => toggleDeliveries(e.currentTarget, history, w) }, t('dash.settings.webhook_deliveries', { name: w.url })),
      h('button', { type: 'button', class: 'danger', onclick: async () => {
        try { await A.api('DELETE', `/webhooks/${w.id}`); ctx.refresh(); } catch (error) { reportError(error); }
      } }, t('dash.delete_item', { name: w.url })), history);
  })) : empty(), hookForm, hookShown));

  root.append(card('dash.settings.deliveries', reminders.items.length ? h('ul', { class: 'items' }, reminders.items.map((r) =>
    h('li', { class: 'item' }, h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, r.title), h('span', { class: 'muted' }, `${r.due_local} · ${r.body}`)),
      badge(r.status_label || r.status, 'ds.semantic.neutral')))) : empty()));

  const password = h('form', { class: 'card form-card', novalidate: true }, h('h2', {}, t('dash.settings.password')), formError(),
    h('div', { class: 'row' },
      field('dash.settings.current_password', input({ type: 'password', autocomplete: 'current-password' }), { name: 'current_password' }),
      field('dash.settings.new_password', input({ type: 'password', autocomplete: 'new-password' }), { name: 'new_password' })),
    h('button', { type: 'submit', class: 'primary' }, t('dash.settings.password')));
  password.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = values(password);
    try {
      await A.api('POST', '/me/password', { current_password: v.current_password ?? '', new_password: v.new_password ?? '' });
      // Every session ended, this one too: sign in again with the new password.
      toast(t('dash.settings.password_changed'));
      window.dispatchEvent(new CustomEvent('lifelog:sign-out', { detail: { everywhere: false } }));
    } catch (error) { showProblem(password, error); }
  });
  root.append(password);
  root.append(yourData());
  root.append(card('dash.settings.sessions', h('button', { type: 'button', class: 'danger', onclick: () => window.dispatchEvent(new CustomEvent('lifelog:sign-out', { detail: { everywhere: true } })) }, t('dash.sign_out_everywhere'))));
}

// A webhook's recent deliveries: the event, the server's status word, the receiver's last answer.
async function toggleDeliveries(button, into, webhook) {
  const open = button.getAttribute('aria-expanded') === 'true';
  button.setAttribute('aria-expanded', String(!open));
  into.replaceChildren();
  if (open) return;
  try {
    const { items } = await A.get(`/webhooks/${webhook.id}/deliveries?limit=20`);
    into.append(items.length ? h('ul', { class: 'items', 'aria-label': t('dash.settings.webhook_deliveries', { name: webhook.url }) }, items.map((d) =>
      h('li', { class: 'item' }, h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, d.event),
        h('span', { class: 'muted' }, [d.due_local, d.last_status ? t('dash.settings.webhook_answer', { status: d.last_status }) : null, d.last_error].filter(Boolean).join(' · '))),
        badge(d.status_label, d.color_token)))) : empty());
  } catch (error) { reportError(error); }
}

// Download everything (GET /export), or erase the account with the password (DELETE /me).
function yourData() {
  const download = h('button', { type: 'button', class: 'primary', onclick: async () => {
    try { await A.download('/export'); } catch (error) { reportError(error); }
  } }, t('dash.settings.download'));
  const erase = h('form', { class: 'form-card', novalidate: true }, formError(),
    h('p', { class: 'warning' }, t('dash.settings.delete_warning')),
    h('div', { class: 'row' },
      field('dash.settings.delete_password', input({ type: 'password', autocomplete: 'current-password' }), { name: 'password' })),
    h('button', { type: 'submit', class: 'danger' }, t('dash.settings.delete_account')));
  erase.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await A.api('DELETE', '/me', { password: values(erase).password ?? '' });
      window.dispatchEvent(new CustomEvent('lifelog:sign-out', { detail: { message: 'dash.settings.account_deleted' } }));
    } catch (error) { showProblem(erase, error); }
  });
  return card('dash.settings.your_data', h('div', {}, h('p', { class: 'muted' }, t('dash.settings.download_hint')), download),
    h('h3', {}, t('dash.settings.delete_account')), erase);
}

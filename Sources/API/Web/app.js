// The shell: sign-in or the signed-in frame (header, navigation, main), the hash router, the
// live stream of changes, and what happens when the server cannot be reached.
import * as A from './api.js';
import { h, clear, toast, keepingFocus, nextId, unsentInput, restoreInput } from './ui.js';
import { renderAuth } from './auth.js';
import { renderToday, renderOfflineToday, todayReads } from './today.js';

const { t } = A;
const views = {
  today: { area: ['habits', 'tasks', 'finance', 'savings', 'health', 'accounts'], load: async () => ({ render: renderToday }) },
  habits: { area: ['habits'], load: async () => ({ render: (await import('./habits.js')).renderHabits }) },
  tasks: { area: ['tasks'], load: async () => ({ render: (await import('./tasks.js')).renderTasks }) },
  finance: { area: ['finance'], load: async () => ({ render: (await import('./finance.js')).renderFinance }) },
  savings: { area: ['savings'], load: async () => ({ render: (await import('./savings.js')).renderSavings }) },
  health: { area: ['health'], load: async () => ({ render: (await import('./health.js')).renderHealth }) },
  settings: { area: ['accounts'], load: async () => ({ render: (await import('./settings.js')).renderSettings }) },
};
const order = ['today', 'habits', 'tasks', 'finance', 'savings', 'health', 'settings'];
const root = document.getElementById('app');
let main = null;
let status = null;
let stream = null;
let lastChange = null;

function route() {
  const [name, ...rest] = location.hash.replace(/^#\/?/, '').split('/');
  return { name: views[name] ? name : 'today', rest };
}

function frame() {
  clear(root);
  const navId = nextId('nav');
  main = h('main', { id: 'main', tabindex: '-1' });
  status = h('span', { class: 'live-status', role: 'status' });
  const links = order.map((name) => h('a', { href: `#/${name}`, dataset: { view: name } }, t(`dash.nav.${name}`)));
  root.append(
    h('a', { class: 'skip', href: '#main', onclick: (e) => { e.preventDefault(); main.focus(); } }, t('dash.skip')),
    h('header', { class: 'top' },
      h('span', { class: 'brand' }, t('dash.app')),
      h('nav', { 'aria-label': t('dash.nav'), id: navId }, links),
      h('div', { class: 'top-end' }, status,
        h('button', { type: 'button', class: 'link-button', onclick: () => signOut(false) }, t('dash.sign_out')))),
    main,
    h('div', { id: 'toasts', class: 'toasts', role: 'status', 'aria-live': 'polite' }));
}

async function show(options = {}) {
  if (!A.user) return;
  const { name, rest } = route();
  if (!main || !root.contains(main)) frame();
  for (const link of root.querySelectorAll('nav a')) {
    if (link.dataset.view === name) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
  const view = await views[name].load();
  const draw = async () => {
    const next = h('div', { class: `view view-${name}` });
    try {
      await view.render(next, { rest, refresh: () => show({ keepFocus: true }), today: lastChange });
    } catch (error) {
      if (error instanceof A.OfflineError) { await goOffline(); return; }
      if (error instanceof A.ApiError && error.status === 401) { await signedOut(); return; }
      console.error(error);
      next.append(h('p', { class: 'form-error', role: 'alert' }, t('dash.error')));
    }
    // A change from elsewhere draws the view again: what the person was typing stays.
    const kept = options.keepInput ? unsentInput(main) : [];
    clear(main);
    main.append(next);
    if (kept.length) restoreInput(next, kept);
    // For bench/dashboard: when a view's answer is in the page (User Timing, nothing sent anywhere).
    performance.mark('lifelog:rendered', { detail: name });
  };
  if (options.keepFocus) await keepingFocus(draw); else { await draw(); if (options.focusMain) main.focus({ preventScroll: true }); }
  document.title = `${t(`dash.nav.${name}`)} · ${t('dash.app')}`;
}

// ---- The live stream: fetch with the access token, read as server-sent events ----

let reloadTimer = null;
function changed(area) {
  const { name } = route();
  if (!views[name].area.includes(area)) return;
  clearTimeout(reloadTimer);
  reloadTimer = setTimeout(() => show({ keepFocus: true, keepInput: true }), 120);
}

async function follow() {
  const mine = {};
  stream = mine;
  let lastId = null;
  let failures = 0;
  while (stream === mine && A.user) {
    const controller = new AbortController();
    mine.abort = () => controller.abort();
    try {
      if (!A.token()) await A.refresh();
      const headers = { Authorization: `Bearer ${A.token()}`, Accept: 'text/event-stream' };
      if (lastId) headers['Last-Event-ID'] = lastId;
      const answer = await fetch('/api/v1/events/stream', { headers, signal: controller.signal, cache: 'no-store' });
      if (answer.status === 401) { await A.refresh(); continue; }
      if (!answer.ok || !answer.body) throw new Error(`stream ${answer.status}`);
      failures = 0;
      setLive(true);
      const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      let ended = false;
      while (!ended) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = { type: 'message', data: '', id: null };
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event.type = line.slice(6).trim();
            else if (line.startsWith('data:')) event.data += line.slice(5).trim();
            else if (line.startsWith('id:')) event.id = line.slice(3).trim();
          }
          if (event.id) lastId = event.id;
          if (event.type === 'change') { try { const c = JSON.parse(event.data); lastChange = c; changed(c.area); } catch { /* ignore */ } }
          if (event.type === 'reset') show({ keepFocus: true, keepInput: true });
          if (event.type === 'end') {
            ended = true;
            if (event.data.includes('signed_out')) { await signedOut(); return; }
          }
        }
      }
    } catch (error) {
      if (stream !== mine) return;
      failures += 1;
    }
    setLive(false);
    if (stream !== mine) return;
    // Is the server there at all? If not, show what was kept.
    if (failures >= 2 && !(await reachable())) { await goOffline(); }
    await new Promise((resolve) => setTimeout(resolve, Math.min(8000, 500 * 2 ** Math.min(failures, 4))));
  }
}

function setLive(on) {
  if (!status) return;
  status.textContent = on ? t('dash.live') : '';
  status.className = `live-status ${on ? 'on' : ''}`;
}

async function reachable() {
  try { const r = await fetch('/healthz', { cache: 'no-store' }); return r.ok; } catch { return false; }
}

function stopStream() { const s = stream; stream = null; s?.abort?.(); }

// ---- Offline ----

let offline = false;
async function goOffline() {
  if (offline) return;
  offline = true;
  stopStream();
  const kept = await A.keptForOffline('today');
  if (kept?.labels) A.setLabels(kept.labels, kept.lang);
  clear(root);
  const page = h('main', { id: 'main', class: 'offline-page' });
  root.append(h('header', { class: 'top' }, h('span', { class: 'brand' }, t('dash.app')),
    h('span', { class: 'live-status off', role: 'status' }, t('dash.offline'))), page,
    h('div', { id: 'toasts', class: 'toasts', role: 'status', 'aria-live': 'polite' }));
  main = null;
  renderOfflineToday(page, kept);
  // Back when the server is.
  const poll = setInterval(async () => {
    if (await reachable()) { clearInterval(poll); offline = false; location.reload(); }
  }, 3000);
}

// ---- Session ----

async function signedIn() {
  offline = false;
  // Today's reads need only the token: they go beside the labels, not after them.
  if (route().name === 'today') A.prefetch(todayReads);
  // Words that came with the session (Today's first view) need no second request.
  if (!A.hasLabels(A.user.language)) await A.loadLabels(A.user.language);
  frame();
  await show({ focusMain: false });
  // The service worker (offline read) installs once the first page is on screen, not before it.
  if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => {});
  if (!stream) follow();
}

async function signedOut() {
  stopStream();
  A.forget();
  await A.forgetOffline();
  // Nothing private stays in the page, in the history's entries, or in the offline store.
  history.replaceState(null, '', location.pathname);
  main = null;
  await A.loadLabels().catch(() => {});
  renderAuth(root, { onSignedIn: signedIn });
}

async function signOut(everywhere, message) {
  try { await A.signOut(everywhere); } catch (error) { /* the cookie is cleared either way */ }
  await signedOut();
  toast(t(message || 'dash.signed_out'));
}
window.addEventListener('lifelog:sign-out', (e) => signOut(Boolean(e.detail?.everywhere), e.detail?.message));
window.addEventListener('lifelog:labels', () => { frame(); show(); });
window.addEventListener('hashchange', () => { if (A.user && !offline) show({ focusMain: true }); });
// A page restored from the back-forward cache after sign-out shows nothing private.
window.addEventListener('pageshow', (e) => { if (e.persisted && !A.token()) location.reload(); });

async function start() {
  try {
    await A.refresh();
    await signedIn();
  } catch (error) {
    if (error instanceof A.OfflineError) { await goOffline(); return; }
    try { await A.loadLabels(); } catch { await goOffline(); return; }
    renderAuth(root, { onSignedIn: signedIn });
  }
}

start();

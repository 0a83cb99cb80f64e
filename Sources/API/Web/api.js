// The server's API as the page uses it. The access token lives in this module's memory only;
// the refresh token is an HttpOnly cookie the page never sees. Every word comes from /labels.

import { firstRefresh } from './boot.js';

let accessToken = null;
let expiresAt = 0;
let labels = {};
export let user = null;
const listeners = new Set();

export class OfflineError extends Error {}
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || String(status));
    this.status = status;
    this.problem = problem || {};
  }
  fieldErrors() {
    return Object.fromEntries((this.problem.errors || []).map((e) => [e.field, e.message]));
  }
}

export function onSession(listener) { listeners.add(listener); }
function announce() { for (const l of listeners) l(user); }

/** A word of the server's catalogue, with {placeholders} filled; the key itself when unknown. */
export function t(key, vars) {
  let text = labels[key] ?? key;
  if (vars) for (const [k, v] of Object.entries(vars)) text = text.split(`{${k}}`).join(String(v ?? ''));
  return text;
}
export function hasLabels(lang) { return Object.keys(labels).length > 0 && (!lang || document.documentElement.lang === lang); }

export async function loadLabels(lang) {
  const query = lang ? `?lang=${encodeURIComponent(lang)}` : '';
  const answer = await fetch(`/api/v1/labels${query}`, { credentials: 'same-origin' });
  if (!answer.ok) throw new ApiError(answer.status, null);
  const body = await answer.json();
  labels = body.labels || {};
  document.documentElement.lang = body.lang || 'en';
  return body;
}
export function setLabels(map, lang) { labels = map || {}; if (lang) document.documentElement.lang = lang; }
export function currentLabels() { return labels; }

function take(session) {
  accessToken = session.access_token;
  expiresAt = Date.now() + (session.expires_in - 60) * 1000;
  user = session.user || user;
  if (session.first_view) keepFirstView(session.first_view);
  announce();
}

/** The first page's reads and words that came with the session (boot.js asked for them): each
 *  is taken by the first get of its path, as a prefetched answer is. */
function keepFirstView(first) {
  if (first.labels) setLabels(first.labels.labels, first.labels.lang);
  for (const [path, body] of Object.entries(first.reads || {})) early.set(path, { answer: Promise.resolve(body), at: Date.now() });
}

async function post(path, body) {
  return read(fetch(path, {
    method: 'POST', credentials: 'same-origin',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }));
}

async function read(request) {
  let answer;
  try { answer = await request; } catch (error) { throw new OfflineError(String(error)); }
  const text = await answer.text();
  const json = text ? JSON.parse(text) : null;
  if (!answer.ok) throw new ApiError(answer.status, json);
  return json;
}

/** A session's answer; with a first view its access token comes in a header (the body is
 *  compressed, and a compressed body holds no secret). */
async function readSession(request) {
  let answer;
  try { answer = await request; } catch (error) { throw new OfflineError(String(error)); }
  const token = answer.headers.get('X-Access-Token');
  const session = await read(Promise.resolve(answer));
  if (token && session) session.access_token = token;
  return session;
}

export async function signIn(email, password) { take(await post('/api/v1/auth/browser/login', { email, password })); return user; }
export async function register(fields) { take(await post('/api/v1/auth/browser/register', fields)); return user; }

let bootRefresh = firstRefresh;
/** Trades the cookie for an access token. Tabs take turns (a Web Lock): two at once with one cookie would look like theft. */
export async function refresh() {
  // The first one was started by boot.js before this module ran.
  const started = bootRefresh;
  bootRefresh = null;
  if (started) { take(await readSession(started)); return user; }
  const run = async () => { take(await post('/api/v1/auth/browser/refresh')); return user; };
  if (navigator.locks) return navigator.locks.request('lifelog-refresh', run);
  return run();
}

export async function signOut(everywhere = false) {
  try { await post(`/api/v1/auth/browser/logout${everywhere ? '?everywhere=true' : ''}`); } finally {
    accessToken = null; expiresAt = 0; user = null;
    announce();
  }
}

export function forget() { accessToken = null; user = null; }
export function token() { return accessToken; }
export function setUser(next) { user = next; announce(); }

/** A JSON request with the access token; one refresh and retry after a 401. */
export async function api(method, path, body, options = {}) {
  if (!accessToken || Date.now() > expiresAt) {
    try { await refresh(); } catch (error) { if (error instanceof OfflineError) throw error; }
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    const headers = { Authorization: `Bearer ${accessToken}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (method === 'POST') headers['Idempotency-Key'] = options.key || crypto.randomUUID();
    if (options.ifMatch) headers['If-Match'] = options.ifMatch;
    let answer;
    try {
      answer = await fetch(`/api/v1${path}`, {
        method, headers, credentials: 'same-origin', cache: 'no-store',
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new OfflineError(String(error));
    }
    if (answer.status === 401 && attempt === 0) {
      try { await refresh(); continue; } catch (error) { if (error instanceof OfflineError) throw error; forget(); announce(); }
    }
    // A proxy or a server that is shutting down: for writes, as good as offline.
    if (answer.status === 502 || answer.status === 504) throw new OfflineError(`HTTP ${answer.status}`);
    if (answer.ok && options.asFile) return { blob: await answer.blob(), name: fileName(answer.headers.get('Content-Disposition')) };
    const text = await answer.text();
    const json = text ? JSON.parse(text) : null;
    if (!answer.ok) throw new ApiError(answer.status, json);
    if (options.withHeaders) return { json, headers: answer.headers, status: answer.status };
    return json;
  }
  throw new ApiError(401, { title: 'Unauthorized' });
}

/** The file name the server gave a download (`attachment; filename="…"`). */
function fileName(disposition) {
  const match = /filename="([^"]+)"/.exec(disposition || '');
  return match ? match[1] : 'download';
}

/** A download fetched with the access token (which no link could carry) and handed to the browser. */
export async function download(path) {
  const { blob, name } = await api('GET', path, undefined, { asFile: true });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  return name;
}

// GETs started early (beside the labels, at sign-in), each answer taken by the first get of its
// path within a few seconds; one not taken by then is dropped, never shown late.
const early = new Map();
export function prefetch(paths) {
  for (const path of paths) {
    if (early.has(path)) continue;  // it came with the session
    const answer = api('GET', path);
    answer.catch(() => {});  // the view that takes it sees the error
    early.set(path, { answer, at: Date.now() });
  }
}

export function get(path, options) {
  const kept = options ? undefined : early.get(path);
  early.delete(path);
  if (kept && Date.now() - kept.at < 5000) return kept.answer;
  return api('GET', path, undefined, options);
}

/** Every page of a cursor-paged list. */
export async function all(path, limit = 100) {
  const items = [];
  let cursor = null;
  for (let i = 0; i < 50; i++) {
    const sep = path.includes('?') ? '&' : '?';
    const page = await get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    items.push(...page.items);
    cursor = page.next_cursor;
    if (!cursor) break;
  }
  return items;
}

// ---- The last Today and briefing, for reading when the server cannot be reached ----

const OFFLINE_CACHE = 'lifelog-offline-v1';

export async function keepForOffline(name, data) {
  if (!('caches' in window)) return;
  try {
    const cache = await caches.open(OFFLINE_CACHE);
    const body = JSON.stringify({ saved_at: Date.now(), data, labels, lang: document.documentElement.lang });
    await cache.put(`/offline/${name}`, new Response(body, { headers: { 'Content-Type': 'application/json' } }));
  } catch { /* storage refused: nothing is kept */ }
}

export async function keptForOffline(name) {
  if (!('caches' in window)) return null;
  try {
    const cache = await caches.open(OFFLINE_CACHE);
    const answer = await cache.match(`/offline/${name}`);
    return answer ? await answer.json() : null;
  } catch { return null; }
}

export async function forgetOffline() {
  if ('caches' in window) { try { await caches.delete(OFFLINE_CACHE); } catch { /* nothing kept */ } }
}

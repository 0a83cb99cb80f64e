// Building the page: every text goes in as a text node (escaped by construction), never as HTML.
import { t, ApiError, OfflineError } from './api.js';

const SVG = 'http://www.w3.org/2000/svg';

/** An element: h('button', {class: 'x', onclick: f}, 'text', child, ...). */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

export function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null && v !== false) node.setAttribute(k, String(v));
  append(node, children);
  return node;
}

function setAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (key === 'class') node.className = value;
    else if (key === 'style' && typeof value === 'object') Object.assign(node.style, value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    // A control's value and choice as given are its defaults too: what the person changes differs from them (`unsentInput`).
    else if (key === 'checked') node.defaultChecked = node.checked = value === true;
    else if (key === 'selected') node.defaultSelected = node.selected = value === true;
    else if (key === 'value' && node.tagName !== 'SELECT') node.setAttribute('value', String(value));
    else if (key in node && typeof value !== 'string') node[key] = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

let uid = 0;
export const nextId = (prefix = 'f') => `${prefix}-${++uid}`;

/** A labelled field: label + control, with a slot for the server's message about it. */
export function field(labelKey, control, options = {}) {
  const id = control.id || nextId();
  control.id = id;
  if (options.name) control.name = options.name;
  const error = h('span', { class: 'field-error', id: `${id}-error`, role: 'alert' });
  control.setAttribute('aria-describedby', `${id}-error`);
  return h('div', { class: `field ${options.class || ''}`, dataset: { field: options.name || '' } },
    h('label', { for: id }, typeof labelKey === 'string' ? t(labelKey) : labelKey), control, error);
}

export function input(attrs) { return h('input', { type: 'text', ...attrs }); }

export function select(options, value, attrs = {}) {
  const node = h('select', attrs);
  for (const [v, label] of options) node.append(h('option', { value: v, selected: String(v) === String(value) }, label));
  return node;
}

/** Shows a problem's field errors beside their fields, and its title at the form's top. */
export function showProblem(form, error) {
  for (const span of form.querySelectorAll('.field-error')) span.textContent = '';
  const top = form.querySelector('.form-error');
  let message = t('dash.error');
  if (error instanceof OfflineError) message = t('dash.offline.write');
  else if (error instanceof ApiError) {
    const fields = error.fieldErrors();
    let placed = false;
    for (const [name, text] of Object.entries(fields)) {
      const wrapper = form.querySelector(`[data-field="${CSS.escape(name)}"] .field-error`);
      if (wrapper) { wrapper.textContent = text; placed = true; }
    }
    message = error.problem.detail || error.problem.title || message;
    if (placed && Object.keys(fields).length) message = error.problem.title || message;
  }
  if (top) top.textContent = message;
  else toast(message, 'error');
}

export function formError() { return h('p', { class: 'form-error', role: 'alert' }); }

/** A short message in the live region at the bottom. */
export function toast(message, kind = 'info') {
  const region = document.getElementById('toasts');
  if (!region) return;
  const item = h('div', { class: `toast toast-${kind}` }, message);
  region.append(item);
  setTimeout(() => item.remove(), kind === 'error' ? 8000 : 4000);
}

export function reportError(error) {
  if (error instanceof OfflineError) toast(t('dash.offline.write'), 'error');
  else if (error instanceof ApiError) toast(error.problem.detail || error.problem.title || t('dash.error'), 'error');
  else { console.error(error); toast(t('dash.error'), 'error'); }
}

/** A colour class from a server colour token (ds.semantic.positive → tone-positive). */
export function tone(token) {
  const last = String(token || 'ds.semantic.neutral').split('.').pop();
  return `tone-${last.replace(/[^a-z]/g, '')}`;
}

export function card(titleKey, ...children) {
  const id = nextId('h');
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, t(titleKey)), ...children);
}

export function empty(key = 'dash.nothing') { return h('p', { class: 'muted' }, t(key)); }

export function badge(text, token) { return h('span', { class: `badge ${tone(token)}` }, text); }

/** A bar (a share or a percentage the server gave): width only, no arithmetic on its meaning. */
export function bar(percent, token, label) {
  const value = Math.max(0, Math.min(100, Number(percent) || 0));
  const fill = h('span', { class: `bar-fill ${tone(token)}` });
  fill.style.width = `${value}%`;
  return h('span', { class: 'bar', role: 'img', 'aria-label': label }, fill);
}

/**
 * A chart of values the server computed: bars in SVG, and beside it a table of the same values
 * (the text alternative). Positions are drawing only; missing values are gaps, never zeros.
 */
export function barChart(points, { title, unit = '', height = 120, token } = {}) {
  // One slot per value, at least 30 slots wide, so one value is one bar, not a wall.
  const step = 14;
  const width = Math.max(points.length, 30) * step;
  const values = points.map((p) => (p.value === null || p.value === undefined ? null : Number(p.value)));
  const top = Math.max(1, ...values.filter((v) => v !== null));
  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': title, preserveAspectRatio: 'xMinYMax meet' });
  points.forEach((p, i) => {
    if (values[i] === null) return;
    const barHeight = Math.max(1, (values[i] / top) * (height - 4));
    svg.append(s('rect', { x: i * step + 1, y: height - barHeight, width: Math.max(step - 2, 1), height: barHeight,
      class: `chart-bar ${p.token ? tone(p.token) : tone(token)}` }, s('title', {}, `${p.label}: ${p.text ?? values[i]} ${unit}`)));
  });
  return h('figure', { class: 'chart-figure' }, svg, dataTable(title, points, unit));
}

export function dataTable(title, points, unit = '') {
  return h('details', { class: 'chart-table' },
    h('summary', {}, t('dash.health.chart_table')),
    h('table', {}, h('caption', {}, title),
      h('tbody', {}, points.map((p) => h('tr', {}, h('th', { scope: 'row' }, p.label), h('td', {}, p.value === null || p.value === undefined ? '—' : `${p.text ?? p.value} ${unit}`.trim()))))));
}

/** Keeps the focused control focused across a re-render (keyboard users keep their place). */
export async function keepingFocus(render) {
  const active = document.activeElement;
  const key = active?.dataset?.focus;
  await render();
  if (key) {
    const again = document.querySelector(`[data-focus="${CSS.escape(key)}"]`);
    if (again) again.focus({ preventScroll: true });
  }
}

export function clear(node) { while (node.firstChild) node.firstChild.remove(); }

/** What the person has typed or chosen in the forms of `container` and not sent yet: each changed
 *  control, by its form's place and kind and its own name (and value, for a choice). */
export function unsentInput(container) {
  const kept = [];
  container.querySelectorAll('form').forEach((form, index) => {
    for (const el of form.elements) {
      if (!el.name || el.type === 'password' || el.type === 'file') continue;
      const at = { index, kind: form.className, name: el.name };
      if (el.type === 'radio' || el.type === 'checkbox') {
        if (el.checked !== el.defaultChecked) kept.push({ ...at, value: el.value, checked: el.checked });
      } else if (el.tagName === 'SELECT') {
        if ([...el.options].some((o) => o.selected !== o.defaultSelected)) kept.push({ ...at, selected: el.value });
      } else if ('defaultValue' in el && el.value !== el.defaultValue) kept.push({ ...at, typed: el.value });
    }
  });
  return kept;
}

/** Puts `kept` (from `unsentInput`) back into the same forms of a view drawn again. */
export function restoreInput(container, kept) {
  const forms = container.querySelectorAll('form');
  for (const k of kept) {
    const form = forms[k.index];
    if (!form || form.className !== k.kind) continue;
    for (const el of form.elements) {
      if (el.name !== k.name || el.disabled) continue;
      if ('checked' in k) { if (el.value === k.value) el.checked = k.checked; } else if ('selected' in k) el.value = k.selected; else el.value = k.typed;
    }
  }
}

/** The values of a form's named controls (empty strings left out). */
export function values(form) {
  const out = {};
  for (const el of form.elements) {
    if (!el.name || el.disabled) continue;
    if (el.type === 'checkbox') { (out[el.name] ||= []); if (el.checked) out[el.name].push(el.value); continue; }
    if (el.value !== '') out[el.name] = el.value;
  }
  return out;
}

// Habits: every active habit with its streaks, create / edit / archive, freezes, and a year's
// heatmap per habit from /habits/{id}/history?days=365 (the server's periods, the user's days).
import * as A from './api.js';
import { h, card, empty, field, input, select, showProblem, formError, values, badge, reportError, toast, nextId } from './ui.js';
import { habitItem } from './today.js';

const { t } = A;

export async function renderHabits(root, ctx) {
  const everyHabit = await A.all('/habits?include_archived=true');
  const habits = everyHabit.filter((habit) => !habit.archived);
  const archived = everyHabit.filter((habit) => habit.archived);
  const L = (key) => t(key);
  root.append(h('h1', { class: 'page-title' }, t('dash.nav.habits')));
  root.append(habitForm(null, ctx.refresh));
  const list = h('ul', { class: 'items habit-list' });
  for (const habit of habits) list.append(habitRow(habit, L, ctx));
  root.append(card('dash.nav.habits', habits.length ? list : empty()));
  if (archived.length) root.append(card('dash.habits.archived', h('ul', { class: 'items' }, archived.map((habit) => archivedRow(habit, ctx)))));
}

// An archived habit keeps its history; restoring it brings back its streaks as they were.
function archivedRow(habit, ctx) {
  const name = `${habit.emoji ? `${habit.emoji} ` : ''}${habit.name}`;
  return h('li', { class: 'item', dataset: { habit: habit.id } },
    h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, name),
      h('span', { class: 'muted' }, t('dash.best_streak', { count: habit.best_streak }))),
    h('button', { type: 'button', onclick: async () => {
      try { await A.api('POST', `/habits/${habit.id}/restore`); toast(t('dash.saved')); ctx.refresh(); } catch (error) { reportError(error); }
    } }, t('dash.restore_item', { name: habit.name })));
}

function habitRow(habit, L, ctx) {
  const row = habitItem(habit, habit.date || '', L, false);
  const name = habit.name;
  const details = h('div', { class: 'habit-details' });
  const actions = h('div', { class: 'actions' },
    h('span', { class: 'muted' }, [t('dash.best_streak', { count: habit.best_streak }),
      habit.completion_rate_30d !== undefined && habit.completion_rate_30d !== null ? t('dash.rate_30d', { percent: Math.round(habit.completion_rate_30d * 100) }) : null].filter(Boolean).join(' · ')),
    h('button', { type: 'button', 'aria-expanded': 'false', onclick: (e) => toggle(e.currentTarget, details, () => heatmap(habit)) }, t('dash.heatmap.show', { name })),
    h('button', { type: 'button', onclick: (e) => toggle(e.currentTarget, details, () => habitForm(habit, ctx.refresh)) }, t('dash.edit_item', { name })),
    h('button', { type: 'button', onclick: (e) => toggle(e.currentTarget, details, () => freezeForm(habit, ctx.refresh)) }, t('dash.freeze_item', { name })),
    h('button', { type: 'button', class: 'danger', onclick: async () => {
      try { await A.api('DELETE', `/habits/${habit.id}`); toast(t('dash.saved')); ctx.refresh(); } catch (error) { reportError(error); }
    } }, t('dash.archive_item', { name })));
  row.append(actions, details);
  return row;
}

async function toggle(button, into, make) {
  const open = button.getAttribute('aria-expanded') === 'true';
  for (const b of button.parentElement.querySelectorAll('button[aria-expanded]')) b.setAttribute('aria-expanded', 'false');
  into.replaceChildren();
  if (open) return;
  button.setAttribute('aria-expanded', 'true');
  into.append(await make());
}

async function heatmap(habit) {
  const history = await A.get(`/habits/${habit.id}/history?days=365`);
  const title = t('dash.heatmap', { name: habit.name });
  const grid = h('div', { class: 'heatmap', role: 'img', 'aria-label': title });
  for (const period of history.items) {
    grid.append(h('span', { class: `cell cell-${period.status}`, title: `${period.start}${period.end !== period.start ? ` – ${period.end}` : ''}: ${t(`habit.period.${period.status}`)}` }));
  }
  return h('figure', { class: 'heatmap-figure' }, h('figcaption', {}, title), grid,
    h('details', { class: 'chart-table' }, h('summary', {}, t('dash.health.chart_table')),
      h('table', {}, h('caption', {}, title), h('tbody', {}, history.items.map((p) =>
        h('tr', {}, h('th', { scope: 'row' }, p.start === p.end ? p.start : `${p.start} – ${p.end}`), h('td', {}, t(`habit.period.${p.status}`))))))),
    h('p', { class: 'legend' }, ['satisfied', 'excused', 'missed', 'pending'].map((s) =>
      h('span', { class: 'legend-item' }, h('span', { class: `cell cell-${s}` }), ` ${t(`habit.period.${s}`)}`))));
}

function habitForm(habit, done) {
  const editing = Boolean(habit);
  const form = h('form', { class: 'card form-card', novalidate: true });
  const kind = select([['boolean', t('dash.habit.kind.boolean')], ['numeric', t('dash.habit.kind.numeric')]], habit?.kind || 'boolean', { name: 'kind', disabled: editing });
  const schedule = habit?.schedule || { type: 'daily' };
  const type = select(['daily', 'weekdays', 'times_per_week', 'every_n_days', 'monthly'].map((k) => [k, t(`dash.schedule.${k}`)]), schedule.type, { name: 'schedule_type' });
  const days = h('fieldset', { class: 'weekdays' }, h('legend', {}, t('dash.schedule.weekdays')),
    [1, 2, 3, 4, 5, 6, 7].map((d) => h('label', {}, h('input', { type: 'checkbox', name: 'days', value: String(d), checked: (schedule.days || []).includes(d) }), t(`dash.weekday.${d}`))));
  const extra = h('div', { class: 'schedule-extra' });
  const showExtra = () => {
    extra.replaceChildren();
    if (type.value === 'weekdays') extra.append(days);
    if (type.value === 'times_per_week') extra.append(field('dash.schedule.times', input({ type: 'number', min: 1, max: 7, value: schedule.count ?? 3 }), { name: 'times' }));
    if (type.value === 'every_n_days') extra.append(field('dash.schedule.interval', input({ type: 'number', min: 1, value: schedule.n ?? 2 }), { name: 'interval' }));
    if (type.value === 'monthly') extra.append(field('dash.schedule.day_of_month', input({ value: schedule.day ?? 1 }), { name: 'day' }));
  };
  type.addEventListener('change', showExtra);
  showExtra();
  const numeric = h('div', { class: 'row' },
    field('dash.habit.target', input({ type: 'number', min: 0, step: 'any', value: habit?.target ?? '' }), { name: 'target' }),
    field('dash.habit.unit', input({ value: habit?.unit ?? '' }), { name: 'unit' }));
  const showNumeric = () => { numeric.hidden = kind.value !== 'numeric'; };
  kind.addEventListener('change', showNumeric);
  showNumeric();
  form.append(
    h('h2', {}, editing ? t('dash.edit_item', { name: habit.name }) : t('dash.habits.new')), formError(),
    h('div', { class: 'row' },
      field('dash.name', input({ value: habit?.name ?? '', required: true }), { name: 'name' }),
      field('dash.emoji', input({ value: habit?.emoji ?? '', class: 'short' }), { name: 'emoji' }),
      field('dash.habit.kind', kind, { name: 'kind' })),
    numeric,
    field('dash.habit.schedule', type, { name: 'schedule' }), extra,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, editing ? t('dash.save') : t('dash.add'))));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = values(form);
    const sched = { type: type.value };
    if (type.value === 'weekdays') sched.days = (v.days || []).map(Number);
    if (type.value === 'times_per_week') sched.count = Number(v.times);
    if (type.value === 'every_n_days') sched.n = Number(v.interval);
    if (type.value === 'monthly') sched.day = v.day === 'last' ? 'last' : Number(v.day);
    const body = { name: v.name ?? '', schedule: sched };
    if (v.emoji) body.emoji = v.emoji; else if (editing && habit.emoji) body.emoji = null;
    if (!editing) body.kind = kind.value;
    if (kind.value === 'numeric') { if (v.target) body.target = Number(v.target); if (v.unit) body.unit = v.unit; }
    try {
      if (editing) await A.api('PATCH', `/habits/${habit.id}`, body);
      else await A.api('POST', '/habits', body);
      toast(t('dash.saved'));
      done();
    } catch (error) { showProblem(form, error); }
  });
  return form;
}

function freezeForm(habit, done) {
  const form = h('form', { class: 'inline-card', novalidate: true }, formError(),
    h('div', { class: 'row' },
      field('dash.freeze.from', input({ type: 'date', required: true }), { name: 'from' }),
      field('dash.freeze.to', input({ type: 'date', required: true }), { name: 'to' }),
      field('dash.freeze.reason', input({}), { name: 'reason' })),
    h('button', { type: 'submit', class: 'primary' }, t('dash.freeze')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = values(form);
    try { await A.api('POST', `/habits/${habit.id}/freezes`, { from: v.from, to: v.to, ...(v.reason ? { reason: v.reason } : {}) }); toast(t('dash.saved')); done(); }
    catch (error) { showProblem(form, error); }
  });
  return form;
}

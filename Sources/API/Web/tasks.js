// Tasks: the server's filters (today, overdue, upcoming = open, done = completed), create,
// edit, complete, delete, repeats, a page at a time.
import * as A from './api.js';
import { h, card, empty, field, input, select, showProblem, formError, values, badge, reportError, toast } from './ui.js';
import { taskItem } from './today.js';

const { t } = A;
const filters = [['today', 'today'], ['overdue', 'overdue'], ['upcoming', 'open'], ['done', 'completed']];

export async function renderTasks(root, ctx) {
  const chosen = filters.find(([name]) => name === ctx.rest[0]) || filters[0];
  root.append(h('h1', { class: 'page-title' }, t('dash.nav.tasks')));
  root.append(h('nav', { class: 'tabs', 'aria-label': t('dash.filter') }, filters.map(([name]) =>
    h('a', { href: `#/tasks/${name}`, 'aria-current': name === chosen[0] ? 'page' : false }, t(`dash.filter.${name}`)))));
  root.append(taskForm(null, ctx.refresh));
  const list = h('ul', { class: 'items' });
  const more = h('button', { type: 'button', hidden: true }, t('dash.more'));
  let cursor = null;
  const load = async () => {
    const page = await A.get(`/tasks?filter=${chosen[1]}&limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    for (const task of page.items) list.append(taskRow(task, ctx));
    cursor = page.next_cursor;
    more.hidden = !cursor;
    if (!list.children.length) list.replaceWith(empty());
  };
  more.addEventListener('click', () => load().catch(reportError));
  root.append(card(`dash.filter.${chosen[0]}`, list, more));
  await load();
}

function taskRow(task, ctx) {
  const row = taskItem(task, (k) => t(k), false, ctx.refresh);
  const details = h('div', { class: 'task-details' });
  if (task.repeat) row.append(badge(`${t('dash.task.repeats')}: ${t(`dash.repeat.${task.repeat.every}`)}`, 'ds.semantic.neutral'));
  row.append(h('div', { class: 'actions' },
    h('button', { type: 'button', 'aria-expanded': 'false', onclick: (e) => {
      const open = e.currentTarget.getAttribute('aria-expanded') === 'true';
      e.currentTarget.setAttribute('aria-expanded', String(!open));
      details.replaceChildren(...(open ? [] : [taskForm(task, ctx.refresh)]));
    } }, t('dash.edit_item', { name: task.title })),
    h('button', { type: 'button', class: 'danger', onclick: async () => {
      try { await A.api('DELETE', `/tasks/${task.id}`); toast(t('dash.saved')); ctx.refresh(); } catch (error) { reportError(error); }
    } }, t('dash.delete_item', { name: task.title }))), details);
  return row;
}

function taskForm(task, done) {
  const editing = Boolean(task);
  const form = h('form', { class: editing ? 'inline-card' : 'card form-card', novalidate: true },
    editing ? null : h('h2', {}, t('dash.tasks.new')), formError(),
    h('div', { class: 'row' },
      field('dash.task.title', input({ value: task?.title ?? '', required: true }), { name: 'title' }),
      field('dash.task.priority', select([1, 2, 3].map((p) => [p, t(`dash.priority.${p}`)]), task?.priority ?? 2), { name: 'priority' })),
    h('div', { class: 'row' },
      field('dash.task.due_date', input({ type: 'date', value: task?.due_date ?? '' }), { name: 'due_date' }),
      field('dash.task.due_time', input({ type: 'time', value: task?.due_time ?? '' }), { name: 'due_time' }),
      editing ? null : field('dash.task.repeat', select([['', t('dash.repeat.none')], ['day', t('dash.repeat.day')], ['week', t('dash.repeat.week')], ['month', t('dash.repeat.month')]], ''), { name: 'repeat' })),
    field('dash.task.notes', h('textarea', { rows: 2 }, task?.notes ?? ''), { name: 'notes' }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, editing ? t('dash.save') : t('dash.add'))));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = values(form);
    const body = { title: v.title ?? '', priority: Number(v.priority || 2) };
    if (v.due_date) body.due_date = v.due_date; else if (editing && task.due_date) body.due_date = null;
    if (v.due_time) body.due_time = v.due_time; else if (editing && task.due_time) body.due_time = null;
    if (v.notes) body.notes = v.notes; else if (editing && task.notes) body.notes = null;
    if (!editing && v.repeat) body.repeat = { every: v.repeat };
    try {
      if (editing) await A.api('PATCH', `/tasks/${task.id}`, body, { ifMatch: `"${task.version}"` });
      else await A.api('POST', '/tasks', body);
      toast(t('dash.saved'));
      done();
    } catch (error) { showProblem(form, error); }
  });
  return form;
}

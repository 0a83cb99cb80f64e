// Today, the landing page: GET /today with the briefing, the open data checks and the
// categories' names, all read in parallel. A check-off's answer carries the habit's new state,
// shown at once; the stream then reads the rest again.
import * as A from './api.js';
import { h, card, empty, badge, bar, tone, reportError, toast, nextId } from './ui.js';

const { t } = A;

/** What Today reads, started at sign-in beside the labels. */
export const todayReads = ['/today', '/health/briefing', '/health/quality?status=open', '/health/recovery'];

export async function renderToday(root) {
  const soft = (promise) => promise.catch((error) => { if (error instanceof A.OfflineError) throw error; return null; });
  const [today, briefing, findings, recovery] = await Promise.all(todayReads.map((path, i) => (i === 0 ? A.get(path) : soft(A.get(path)))));
  const needsNames = today.finance.currencies.some((c) => c.budgets.length > 0);
  const categories = needsNames ? await soft(A.get('/finance/categories')) : null;
  A.keepForOffline('today', { today, briefing, recovery });
  draw(root, { today, briefing, findings, recovery, categories }, false);
}

/** What was kept, with when it was kept: nothing invented, nothing stale shown as fresh. */
export function renderOfflineToday(root, kept) {
  root.append(h('p', { class: 'offline-notice', role: 'alert' }, kept ? t('dash.offline.notice') : t('dash.offline.none')));
  if (!kept) return;
  const minutes = Math.max(0, Math.floor((Date.now() - kept.saved_at) / 60000));
  root.append(h('p', { class: 'refreshed' }, t('dash.offline.refreshed', { minutes })));
  draw(root, { ...kept.data, findings: null, categories: null }, true);
}

function draw(root, { today, briefing, findings, recovery, categories }, offline) {
  const L = (key) => today.labels[key] ?? t(key);
  root.append(h('h1', { class: 'page-title' }, h('span', {}, L('today.title')), h('span', { class: 'date' }, today.date)));
  const grid = h('div', { class: 'grid' });
  root.append(grid);

  // Recovery, as the server scored it.
  const health = today.health;
  const scoreBlock = h('div', { class: 'score-block' });
  if (health) {
    scoreBlock.append(
      h('span', { class: `score ${tone(health.color_token)}` }, health.score === null ? '—' : String(health.score)),
      h('span', { class: 'score-side' }, badge(health.status_label, health.color_token),
        recovery?.methodology ? h('span', { class: 'badge badge-method' }, recovery.methodology.label) : null));
  } else {
    scoreBlock.append(h('span', { class: 'score tone-neutral' }, '—'), badge(t('recovery.status.unscorable'), 'ds.semantic.neutral'));
  }
  grid.append(card('dash.today.recovery', scoreBlock, checkInForm(today.date, recovery?.check_in, L, offline)));

  // Habits due today (and those done today).
  const habits = today.habits.filter((habit) => habit.due_today || habit.completed_today);
  const habitList = h('ul', { class: 'items' }, habits.map((habit) => habitItem(habit, today.date, L, offline)));
  grid.append(card('dash.today.habits', habits.length ? habitList : empty('dash.today.all_done')));

  // Tasks due and overdue.
  const taskList = h('ul', { class: 'items' }, today.tasks.map((task) => taskItem(task, L, offline)));
  grid.append(card('dash.today.tasks', today.tasks.length ? taskList : empty()));

  // Savings payments due soon and overdue.
  const payments = [...today.savings.overdue, ...today.savings.due_soon];
  grid.append(card('dash.today.savings', payments.length
    ? h('ul', { class: 'items' }, payments.map((o) => paymentItem(o, today.date, L, offline))) : empty()));

  // The month's budgets.
  const names = Object.fromEntries((categories?.items || []).map((c) => [c.id, `${c.emoji ? `${c.emoji} ` : ''}${c.name}`]));
  const budgets = today.finance.currencies.flatMap((c) => c.budgets.map((b) => ({ ...b, currency: c.currency })));
  if (budgets.length) {
    grid.append(card('dash.today.budgets', h('ul', { class: 'items' }, budgets.map((b) => {
      const name = names[b.category_id] || '';
      const token = b.color_token;
      return h('li', { class: 'item budget' },
        h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, name),
          h('span', { class: 'muted' }, t('dash.finance.budget_line', { spent: b.spent, amount: `${b.amount} ${b.currency}`, percent: b.used_percent }))),
        bar(b.used_percent, token, `${name}: ${b.used_percent}%`), badge(L(`budget.status.${b.status}`), token));
    }))));
  }

  // The briefing's blocks and sections.
  if (briefing) {
    const blocks = ['sleep', 'yesterday', 'recovery', 'recommendation'].map((k) => briefing.blocks[k]).filter(Boolean);
    grid.append(card('dash.today.briefing',
      h('div', { class: 'sections' }, briefing.sections.map((section) => h('div', { class: `section ${tone(section.color_token)}` },
        h('span', { class: 'section-title' }, section.title), h('span', { class: 'section-summary' }, section.summary)))),
      blocks.length ? h('div', { class: 'blocks' }, blocks.map((text) => h('p', {}, text))) : empty()));
  }

  // Open data checks.
  if (findings && findings.items.length) {
    grid.append(card('dash.today.findings', h('ul', { class: 'items' }, findings.items.slice(0, 5).map((f) =>
      h('li', { class: 'item' }, h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, f.type_label), h('span', { class: 'muted' }, f.summary)),
        badge(f.severity_label, f.color_token))))));
  }
}

function habitLine(habit, L) {
  const parts = [t('dash.streak', { count: habit.current_streak })];
  if (habit.kind === 'numeric' && habit.target) parts.push(`${t('dash.progress', { done: habit.today_value ?? 0, target: habit.target })} ${habit.unit || ''}`.trim());
  if (habit.period_progress) parts.push(t('dash.progress', { done: habit.period_progress.done, target: habit.period_progress.target }));
  return parts.join(' · ');
}

/** How the person feels this morning: shown beside the score and in the briefing, never scored. */
function checkInForm(date, checkIn, L, offline) {
  const shown = h('p', { class: 'muted', role: 'status' }, checkIn ? t('dash.checkin.recorded', { feeling: checkIn.feeling_label }) : '');
  const form = h('form', { class: 'checkin', novalidate: true },
    h('fieldset', {}, h('legend', {}, t('dash.checkin.question')),
      h('div', { class: 'feelings' }, [1, 2, 3, 4, 5].map((n) => h('label', { class: 'feeling' },
        h('input', { type: 'radio', name: 'feeling', value: String(n), checked: checkIn?.feeling === n, disabled: offline, required: true }), L(`check_in.feeling.${n}`))))),
    h('div', { class: 'inline-form' },
      h('input', { type: 'text', name: 'note', maxLength: 500, value: checkIn?.note ?? '', disabled: offline, 'aria-label': t('dash.checkin.note') }),
      h('button', { type: 'submit', disabled: offline }, t('dash.checkin.save'))),
    shown);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const feeling = form.querySelector('input[name="feeling"]:checked');
    if (!feeling) { shown.textContent = t('dash.checkin.choose'); return; }
    const note = form.elements.note.value;
    try {
      const saved = await A.api('PUT', `/health/checkins/${date}`, { feeling: Number(feeling.value), ...(note ? { note } : {}) });
      shown.textContent = t('dash.checkin.recorded', { feeling: saved.feeling_label });
    } catch (error) { reportError(error); }
  });
  return form;
}

export function habitItem(habit, date, L, offline) {
  const label = `${habit.emoji ? `${habit.emoji} ` : ''}${habit.name}`;
  const line = h('span', { class: 'muted habit-line' }, habitLine(habit, L));
  const state = badge(habit.completed_today ? L('habit.done') : L('habit.due'), habit.completed_today ? 'ds.semantic.positive' : 'ds.semantic.neutral');
  const item = h('li', { class: `item habit ${habit.completed_today ? 'done' : ''}`, dataset: { habit: habit.id } });
  const update = (next) => {
    line.textContent = habitLine(next, L);
    state.textContent = next.completed_today ? L('habit.done') : L('habit.due');
    state.className = `badge ${tone(next.completed_today ? 'ds.semantic.positive' : 'ds.semantic.neutral')}`;
    item.classList.toggle('done', next.completed_today);
  };
  if (habit.kind === 'numeric') {
    const id = nextId('v');
    const value = h('input', { type: 'number', id, min: '0', step: 'any', inputmode: 'decimal', class: 'value-input', disabled: offline,
      'aria-label': t('dash.value_of', { name: habit.name }), dataset: { focus: `value-${habit.id}` } });
    const form = h('form', { class: 'inline-form' }, value,
      h('button', { type: 'submit', disabled: offline, 'aria-label': t('dash.log_item', { name: habit.name }), dataset: { focus: `log-${habit.id}` } }, t('dash.log')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (!value.value) return;
      try {
        update(await A.api('POST', `/habits/${habit.id}/logs`, { value: Number(value.value) }));
        value.value = '';
      } catch (error) { reportError(error); }
    });
    item.append(h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, label), line), form, state);
  } else {
    const box = h('input', { type: 'checkbox', checked: habit.completed_today, disabled: offline, dataset: { focus: `habit-${habit.id}` } });
    box.addEventListener('change', async () => {
      try {
        const next = box.checked
          ? await A.api('POST', `/habits/${habit.id}/logs`, {})
          : await A.api('DELETE', `/habits/${habit.id}/logs/${date}`);
        if (next && next.id) update(next);
        else update({ ...habit, completed_today: false });
      } catch (error) { box.checked = !box.checked; reportError(error); }
    });
    item.append(h('label', { class: 'check' }, box, h('span', { class: 'item-main' }, h('span', { class: 'item-name' }, label), line)), state);
  }
  return item;
}

export function taskItem(task, L, offline, after) {
  const box = h('input', { type: 'checkbox', checked: task.completed, disabled: offline, dataset: { focus: `task-${task.id}` } });
  const item = h('li', { class: `item task ${task.completed ? 'done' : ''}`, dataset: { task: task.id } });
  box.addEventListener('change', async () => {
    try {
      await A.api('POST', `/tasks/${task.id}/${box.checked ? 'complete' : 'uncomplete'}`);
      item.classList.toggle('done', box.checked);
      if (after) after();
    } catch (error) { box.checked = !box.checked; reportError(error); }
  });
  const meta = [task.due_date, task.due_time].filter(Boolean).join(' ');
  item.append(h('label', { class: 'check' }, box,
    h('span', { class: 'item-main' }, h('span', { class: 'item-name' }, task.title), meta ? h('span', { class: 'muted' }, meta) : null)),
    task.overdue ? badge(L('task.overdue'), 'ds.semantic.negative') : task.due_today ? badge(L('task.due_today'), 'ds.semantic.warning') : null,
    task.priority === 3 ? badge(t('dash.priority.3'), 'ds.semantic.warning') : null);
  return item;
}

export function paymentItem(o, date, L, offline, after) {
  const token = o.color_token;
  const pay = h('button', { type: 'button', disabled: offline, dataset: { focus: `pay-${o.goal_id}-${o.due_date}` } },
    t('dash.savings.pay', { amount: `${o.remaining} ${o.currency}`, date: o.due_date }));
  pay.addEventListener('click', async () => {
    pay.disabled = true;
    try {
      await A.api('POST', `/savings/goals/${o.goal_id}/transactions`, { kind: 'deposit', amount: o.remaining, date, occurrence: o.due_date });
      toast(t('dash.saved'));
      if (after) after();
    } catch (error) { pay.disabled = false; reportError(error); }
  });
  return h('li', { class: 'item payment' },
    h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, o.goal_name),
      h('span', { class: 'muted' }, `${o.amount} ${o.currency} · ${o.due_date}${o.days_overdue ? ` · ${t('dash.savings.days_overdue', { days: o.days_overdue })}` : ''}`)),
    badge(L(`savings.status.${o.status}`), token), pay);
}

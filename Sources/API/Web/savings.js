// Savings: goals with progress, every overdue payment, and per goal its plan's calendar,
// deposits and withdrawals, and who it is shared with.
import * as A from './api.js';
import { h, card, empty, field, input, showProblem, formError, values, badge, bar, reportError, toast, tone } from './ui.js';
import { paymentItem } from './today.js';

const { t } = A;
const statusToken = { paid: 'ds.semantic.positive', partial: 'ds.semantic.warning', upcoming: 'ds.semantic.neutral', due_today: 'ds.semantic.warning', overdue: 'ds.semantic.negative' };

export async function renderSavings(root, ctx) {
  if (ctx.rest[0]) return renderGoal(root, ctx, ctx.rest[0]);
  const [overview, goals, today] = await Promise.all([A.get('/savings/overview'), A.all('/savings/goals'), A.get('/today')]);
  root.append(h('h1', { class: 'page-title' }, t('dash.nav.savings')));
  if (overview.overdues.length) {
    root.append(card('dash.savings.overdue', h('ul', { class: 'items' }, overview.overdues.map((o) => paymentItem(o, today.date, (k) => t(k), false, ctx.refresh)))));
  }
  root.append(card('dash.savings.goals', goals.length ? h('ul', { class: 'items goals' }, goals.map((g) => goalRow(g))) : empty()));
  root.append(goalForm(ctx.refresh));
}

function goalRow(g) {
  const name = `${g.emoji ? `${g.emoji} ` : ''}${g.name}`;
  return h('li', { class: 'item goal' },
    h('div', { class: 'item-main' },
      h('a', { href: `#/savings/${g.id}`, class: 'item-name' }, name),
      h('span', { class: 'muted' }, [`${t('dash.savings.balance')}: ${g.balance} ${g.currency}`,
        g.target_amount ? t('dash.savings.progress', { percent: g.progress_percent ?? '0.0', target: `${g.target_amount} ${g.currency}` }) : null,
        g.monthly_needed ? t('dash.savings.monthly_needed', { amount: `${g.monthly_needed} ${g.currency}` }) : null,
        g.next_payment ? t('dash.savings.next', { amount: `${g.next_payment.remaining} ${g.currency}`, date: g.next_payment.due_date }) : null].filter(Boolean).join(' · '))),
    g.target_amount ? bar(g.progress_percent, 'ds.semantic.positive', `${g.name}: ${g.progress_percent}%`) : null,
    g.overdue_count ? badge(`${t('savings.status.overdue')}: ${g.overdue_count}`, 'ds.semantic.negative') : null);
}

async function renderGoal(root, ctx, id) {
  const [goal, occurrences, movements, members, today] = await Promise.all([
    A.get(`/savings/goals/${id}`), A.get(`/savings/goals/${id}/occurrences`), A.get(`/savings/goals/${id}/transactions?limit=50`),
    A.get(`/savings/goals/${id}/members`).catch(() => ({ items: [] })), A.get('/today')]);
  const name = `${goal.emoji ? `${goal.emoji} ` : ''}${goal.name}`;
  root.append(h('p', {}, h('a', { href: '#/savings' }, `← ${t('dash.savings.back')}`)), h('h1', { class: 'page-title' }, name));
  root.append(card('dash.savings.balance', goalRow(goal)));
  root.append(card('dash.savings.calendar', occurrences.items.length ? h('ul', { class: 'items calendar' }, occurrences.items.map((o) =>
    h('li', { class: 'item' }, h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, o.due_date), h('span', { class: 'muted' }, `${o.paid} / ${o.amount} ${o.currency}`)),
      badge(t(`savings.status.${o.status}`), statusToken[o.status])))) : empty()));
  const movement = (kind) => {
    const form = h('form', { class: 'inline-card', novalidate: true }, h('h3', {}, t(kind === 'deposit' ? 'dash.savings.deposit_to' : 'dash.savings.withdraw_from', { name: goal.name })), formError(),
      h('div', { class: 'row' },
        field('dash.finance.amount', input({ inputmode: 'decimal', required: true }), { name: 'amount' }),
        field('dash.date', input({ type: 'date', value: today.date, required: true }), { name: 'date' }),
        field('dash.finance.note', input({}), { name: 'note' })),
      h('button', { type: 'submit', class: 'primary' }, t(kind === 'deposit' ? 'dash.savings.deposit' : 'dash.savings.withdraw')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const v = values(form);
      try { await A.api('POST', `/savings/goals/${id}/transactions`, { kind, amount: v.amount ?? '', date: v.date ?? '', ...(v.note ? { note: v.note } : {}) }); toast(t('dash.saved')); ctx.refresh(); }
      catch (error) { showProblem(form, error); }
    });
    return form;
  };
  root.append(h('div', { class: 'grid' }, movement('deposit'), movement('withdraw')));
  root.append(card('dash.savings.movements', movements.items.length ? h('ul', { class: 'items' }, movements.items.map((m) =>
    h('li', { class: 'item' }, h('span', { class: 'item-name' }, `${m.kind === 'deposit' ? '+' : '−'}${m.amount} ${goal.currency}`), h('span', { class: 'muted' }, [m.date, m.note].filter(Boolean).join(' · '))))) : empty()));
  const invite = h('form', { class: 'inline-form', novalidate: true }, formError(),
    field('dash.savings.invite', input({ type: 'email', required: true }), { name: 'email' }), h('button', { type: 'submit' }, t('dash.add')));
  invite.addEventListener('submit', async (e) => {
    e.preventDefault();
    try { await A.api('POST', `/savings/goals/${id}/members`, { email: values(invite).email ?? '' }); toast(t('dash.saved')); ctx.refresh(); }
    catch (error) { showProblem(invite, error); }
  });
  root.append(card('dash.savings.members', h('ul', { class: 'items' }, members.items.map((m) =>
    h('li', { class: 'item' }, h('span', { class: 'item-name' }, m.name || m.email || ''), badge(t(m.role === 'owner' ? 'dash.savings.owner' : 'dash.savings.member'), 'ds.semantic.neutral')))),
    goal.role === 'owner' ? invite : null));
}

function goalForm(done) {
  const form = h('form', { class: 'card form-card', novalidate: true }, h('h2', {}, t('dash.savings.new')), formError(),
    h('div', { class: 'row' },
      field('dash.name', input({ required: true }), { name: 'name' }),
      field('dash.emoji', input({ class: 'short' }), { name: 'emoji' }),
      field('dash.finance.currency', input({ value: A.user?.currency ?? 'EUR', class: 'short', maxLength: 3 }), { name: 'currency' })),
    h('div', { class: 'row' },
      field('dash.savings.target', input({ inputmode: 'decimal' }), { name: 'target_amount' }),
      field('dash.savings.target_date', input({ type: 'date' }), { name: 'target_date' })),
    h('button', { type: 'submit', class: 'primary' }, t('dash.add')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = values(form);
    try {
      await A.api('POST', '/savings/goals', { name: v.name ?? '', currency: (v.currency || 'EUR').toUpperCase(),
        ...(v.emoji ? { emoji: v.emoji } : {}), ...(v.target_amount ? { target_amount: v.target_amount } : {}), ...(v.target_date ? { target_date: v.target_date } : {}) });
      toast(t('dash.saved'));
      done();
    } catch (error) { showProblem(form, error); }
  });
  return form;
}

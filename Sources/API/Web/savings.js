// Savings: goals with progress, every overdue payment, invitations to answer, and per goal its
// plan (set, change, end) and calendar, deposits and withdrawals, and who it is shared with
// (invite, withdraw an invitation, stop sharing, leave).
import * as A from './api.js';
import { h, card, empty, field, input, select, showProblem, formError, values, badge, bar, reportError, toast, tone } from './ui.js';
import { paymentItem } from './today.js';

const { t } = A;

export async function renderSavings(root, ctx) {
  if (ctx.rest[0]) return renderGoal(root, ctx, ctx.rest[0]);
  const [overview, goals, today] = await Promise.all([A.get('/savings/overview'), A.all('/savings/goals'), A.get('/today')]);
  root.append(h('h1', { class: 'page-title' }, t('dash.nav.savings')));
  if (overview.overdues.length) {
    root.append(card('dash.savings.overdue', h('ul', { class: 'items' }, overview.overdues.map((o) => paymentItem(o, today.date, (k) => t(k), false, ctx.refresh)))));
  }
  const received = await A.all('/savings/invitations');
  if (received.length) root.append(card('dash.savings.received', h('ul', { class: 'items' }, received.map((i) => receivedRow(i, ctx)))));
  root.append(card('dash.savings.goals', goals.length ? h('ul', { class: 'items goals' }, goals.map((g) => goalRow(g))) : empty()));
  root.append(goalForm(ctx.refresh));
}

// An invitation addressed to this person: who invites them to what, to accept or decline.
function receivedRow(invitation, ctx) {
  const answer = (verb) => async () => {
    try { await A.api('POST', `/savings/invitations/${invitation.id}/${verb}`); toast(t('dash.saved')); ctx.refresh(); } catch (error) { reportError(error); }
  };
  return h('li', { class: 'item' },
    h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, invitation.goal_name),
      h('span', { class: 'muted' }, t('dash.savings.invited_by', { owner: invitation.owner_name, email: invitation.owner_email }))),
    h('button', { type: 'button', class: 'primary', onclick: answer('accept') }, t('dash.savings.accept', { name: invitation.goal_name })),
    h('button', { type: 'button', onclick: answer('decline') }, t('dash.savings.decline', { name: invitation.goal_name })));
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
  const goalAnswer = await A.api('GET', `/savings/goals/${id}`, undefined, { withHeaders: true });
  const goal = goalAnswer.json;
  const owner = goal.role === 'owner';
  const [occurrences, movements, members, invitations, today] = await Promise.all([
    A.get(`/savings/goals/${id}/occurrences`), A.get(`/savings/goals/${id}/transactions?limit=50`),
    A.get(`/savings/goals/${id}/members`).catch(() => ({ items: [] })),
    owner ? A.get(`/savings/goals/${id}/invitations`) : Promise.resolve({ items: [] }), A.get('/today')]);
  const name = `${goal.emoji ? `${goal.emoji} ` : ''}${goal.name}`;
  root.append(h('p', {}, h('a', { href: '#/savings' }, `← ${t('dash.savings.back')}`)), h('h1', { class: 'page-title' }, name));
  root.append(card('dash.savings.balance', goalRow(goal)));
  if (owner) root.append(planForm(goal, goalAnswer.headers.get('ETag'), today.date, ctx.refresh));
  root.append(card('dash.savings.calendar', occurrences.items.length ? h('ul', { class: 'items calendar' }, occurrences.items.map((o) =>
    h('li', { class: 'item' }, h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, o.due_date), h('span', { class: 'muted' }, `${o.paid} / ${o.amount} ${o.currency}`)),
      badge(t(`savings.status.${o.status}`), o.color_token)))) : empty()));
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
  const removeMember = (m, label) => h('button', { type: 'button', class: 'danger', onclick: async () => {
    try {
      await A.api('DELETE', `/savings/goals/${id}/members/${m.user_id}`);
      toast(t('dash.saved'));
      if (owner) ctx.refresh(); else location.hash = '#/savings';
    } catch (error) { reportError(error); }
  } }, label);
  root.append(card('dash.savings.members', h('ul', { class: 'items' }, members.items.map((m) => {
    const who = m.name || m.email || '';
    const isMe = m.user_id === A.user?.id;
    return h('li', { class: 'item' }, h('span', { class: 'item-name' }, who), badge(t(m.role === 'owner' ? 'dash.savings.owner' : 'dash.savings.member'), 'ds.semantic.neutral'),
      m.role === 'owner' ? null : owner ? removeMember(m, t('dash.savings.remove_member', { name: who })) : isMe ? removeMember(m, t('dash.savings.leave', { name: goal.name })) : null);
  })), owner ? invite : null));
  if (owner && invitations.items.length) {
    root.append(card('dash.savings.invitations', h('ul', { class: 'items' }, invitations.items.map((i) =>
      h('li', { class: 'item' }, h('span', { class: 'item-name' }, i.email), badge(t(`dash.savings.invitation.${i.status}`), i.status === 'pending' ? 'ds.semantic.neutral' : 'ds.semantic.warning'),
        h('button', { type: 'button', class: 'danger', onclick: async () => {
          try { await A.api('DELETE', `/savings/goals/${id}/invitations/${i.id}`); toast(t('dash.saved')); ctx.refresh(); } catch (error) { reportError(error); }
        } }, t('dash.savings.withdraw_invitation', { email: i.email })))))));
  }
}

// The recurring plan (owner only): from its first month on, every N months on a day of the month;
// earlier payments keep the plan they had. The calendar below is the server's answer to it.
function planForm(goal, etag, todayDate, done) {
  const plan = goal.plan;
  const anchor = select([...Array.from({ length: 31 }, (_, i) => [String(i + 1), String(i + 1)]), ['last', t('dash.savings.last_day')]],
    plan ? String(plan.anchor_day) : '1');
  const form = h('form', { class: 'card form-card', novalidate: true }, h('h2', {}, t('dash.savings.plan')), formError(),
    h('div', { class: 'row' },
      field('dash.savings.plan_amount', input({ inputmode: 'decimal', required: true, value: plan?.amount ?? '' }), { name: 'amount' }),
      field('dash.savings.anchor_day', anchor, { name: 'anchor_day' }),
      field('dash.savings.every_months', input({ type: 'number', min: 1, max: 12, value: plan?.every_months ?? 1 }), { name: 'every_months' })),
    h('div', { class: 'row' },
      field('dash.savings.start_month', input({ type: 'month', required: true, value: plan?.start_month ?? todayDate.slice(0, 7) }), { name: 'start_month' }),
      field('dash.savings.end_month', input({ type: 'month', value: plan?.end_month ?? '' }), { name: 'end_month' })),
    h('div', { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, t('dash.savings.plan_save')),
      plan ? h('button', { type: 'button', class: 'danger', onclick: async () => {
        try { await A.api('DELETE', `/savings/goals/${goal.id}/plan`); toast(t('dash.saved')); done(); } catch (error) { showProblem(form, error); }
      } }, t('dash.savings.plan_end')) : null));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = values(form);
    const body = { amount: v.amount ?? '', anchor_day: v.anchor_day === 'last' ? 'last' : Number(v.anchor_day), every_months: Number(v.every_months || 1),
      start_month: v.start_month ?? '', ...(v.end_month ? { end_month: v.end_month } : {}) };
    try { await A.api('PUT', `/savings/goals/${goal.id}/plan`, body, etag ? { ifMatch: etag } : {}); toast(t('dash.saved')); done(); }
    catch (error) { showProblem(form, error); }
  });
  return form;
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

// Finance: this month's summary per currency (income, expense, net, categories with their
// shares, budgets with use and status), transactions with add / edit / delete and paging,
// categories and their budgets. Every figure is the server's; the page draws it.
import * as A from './api.js';
import { h, card, empty, field, input, select, showProblem, formError, values, badge, bar, reportError, toast } from './ui.js';

const { t } = A;

export async function renderFinance(root, ctx) {
  const [summary, categories] = await Promise.all([A.get('/finance/summary'), A.get('/finance/categories')]);
  const names = Object.fromEntries(categories.items.map((c) => [c.id, `${c.emoji ? `${c.emoji} ` : ''}${c.name}`]));
  root.append(h('h1', { class: 'page-title' }, h('span', {}, t('dash.nav.finance')), h('span', { class: 'date' }, `${summary.period.from} – ${summary.period.to}`)));

  const month = h('div', { class: 'summary' });
  if (!summary.currencies.length) month.append(empty('dash.finance.empty'));
  for (const c of summary.currencies) {
    month.append(h('div', { class: 'currency-block' },
      h('dl', { class: 'figures' },
        h('div', {}, h('dt', {}, t('dash.finance.income')), h('dd', { class: 'tone-positive' }, `${c.income} ${c.currency}`)),
        h('div', {}, h('dt', {}, t('dash.finance.expense')), h('dd', { class: 'tone-negative' }, `${c.expense} ${c.currency}`)),
        h('div', {}, h('dt', {}, t('dash.finance.net')), h('dd', {}, `${c.net} ${c.currency}`))),
      c.by_category.filter((x) => x.kind === 'expense').length ? h('h3', {}, t('dash.finance.by_category')) : null,
      h('ul', { class: 'items bars' }, c.by_category.filter((x) => x.kind === 'expense').map((x) => h('li', { class: 'item' },
        h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, `${x.emoji ? `${x.emoji} ` : ''}${x.name}`), h('span', { class: 'muted' }, `${x.total} ${c.currency} · ${x.share}%`)),
        bar(x.share, 'ds.semantic.info', `${x.name}: ${x.share}%`)))),
      c.budgets.length ? h('h3', {}, t('dash.finance.budgets')) : null,
      h('ul', { class: 'items bars' }, c.budgets.map((b) => h('li', { class: 'item budget', dataset: { category: b.category_id } },
        h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, names[b.category_id] || ''),
          h('span', { class: 'muted' }, t('dash.finance.budget_line', { spent: b.spent, amount: `${b.amount} ${c.currency}`, percent: b.used_percent }))),
        bar(b.used_percent, b.color_token, `${names[b.category_id] || ''}: ${b.used_percent}%`),
        badge(t(`budget.status.${b.status}`), b.color_token))))));
  }
  root.append(card('dash.finance.month', month));
  root.append(transactionForm(null, categories.items, ctx.refresh));

  const list = h('ul', { class: 'items' });
  const more = h('button', { type: 'button', hidden: true }, t('dash.more'));
  let cursor = null;
  const load = async () => {
    const page = await A.get(`/finance/transactions?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    for (const tx of page.items) list.append(transactionRow(tx, names, categories.items, ctx));
    cursor = page.next_cursor;
    more.hidden = !cursor;
  };
  more.addEventListener('click', () => load().catch(reportError));
  root.append(card('dash.finance.transactions', list, more));
  await load();
  if (!list.children.length) list.replaceWith(empty());

  root.append(card('dash.finance.categories', h('ul', { class: 'items' }, categories.items.map((c) => categoryRow(c, summary, ctx))), categoryForm(ctx.refresh)));
}

function transactionRow(tx, names, categories, ctx) {
  const label = `${tx.kind === 'income' ? '+' : '−'}${tx.amount} ${tx.currency}`;
  const details = h('div', {});
  return h('li', { class: 'item' },
    h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, `${label} · ${tx.category_id ? names[tx.category_id] || '' : t('dash.finance.no_category')}`),
      h('span', { class: 'muted' }, [tx.date, tx.note].filter(Boolean).join(' · '))),
    h('div', { class: 'actions' },
      h('button', { type: 'button', 'aria-expanded': 'false', onclick: (e) => {
        const open = e.currentTarget.getAttribute('aria-expanded') === 'true';
        e.currentTarget.setAttribute('aria-expanded', String(!open));
        details.replaceChildren(...(open ? [] : [transactionForm(tx, categories, ctx.refresh)]));
      } }, t('dash.edit_item', { name: `${label} ${tx.date}` })),
      h('button', { type: 'button', class: 'danger', onclick: async () => {
        try { await A.api('DELETE', `/finance/transactions/${tx.id}`); toast(t('dash.saved')); ctx.refresh(); } catch (error) { reportError(error); }
      } }, t('dash.delete_item', { name: `${label} ${tx.date}` }))), details);
}

function transactionForm(tx, categories, done) {
  const editing = Boolean(tx);
  const kind = select([['expense', t('dash.finance.kind.expense')], ['income', t('dash.finance.kind.income')]], tx?.kind || 'expense');
  const category = h('select', {});
  const fill = () => {
    category.replaceChildren(h('option', { value: '' }, t('dash.finance.no_category')),
      ...categories.filter((c) => c.kind === kind.value).map((c) => h('option', { value: c.id, selected: c.id === tx?.category_id }, `${c.emoji ? `${c.emoji} ` : ''}${c.name}`)));
  };
  kind.addEventListener('change', fill);
  fill();
  const form = h('form', { class: editing ? 'inline-card' : 'card form-card', novalidate: true },
    editing ? null : h('h2', {}, t('dash.finance.add')), formError(),
    h('div', { class: 'row' },
      field('dash.finance.kind', kind, { name: 'kind' }),
      field('dash.finance.amount', input({ inputmode: 'decimal', value: tx?.amount ?? '', required: true, placeholder: '12.50' }), { name: 'amount' }),
      field('dash.finance.currency', input({ value: tx?.currency ?? A.user?.currency ?? '', class: 'short', maxLength: 3 }), { name: 'currency' })),
    h('div', { class: 'row' },
      field('dash.finance.category', category, { name: 'category_id' }),
      field('dash.date', input({ type: 'date', value: tx?.date ?? '' }), { name: 'date' }),
      field('dash.finance.note', input({ value: tx?.note ?? '' }), { name: 'note' })),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, editing ? t('dash.save') : t('dash.add'))));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = values(form);
    const body = { kind: v.kind, amount: v.amount ?? '' };
    if (v.currency) body.currency = v.currency.toUpperCase();
    if (v.category_id) body.category_id = v.category_id; else if (editing && tx.category_id) body.category_id = null;
    if (v.date) body.date = v.date;
    if (v.note) body.note = v.note; else if (editing && tx.note) body.note = null;
    try {
      if (editing) await A.api('PATCH', `/finance/transactions/${tx.id}`, body, { ifMatch: `"${tx.version}"` });
      else await A.api('POST', '/finance/transactions', body);
      toast(t('dash.saved'));
      done();
    } catch (error) { showProblem(form, error); }
  });
  return form;
}

function categoryRow(c, summary, ctx) {
  const name = `${c.emoji ? `${c.emoji} ` : ''}${c.name}`;
  const row = h('li', { class: 'item' }, h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, name),
    h('span', { class: 'muted' }, [t(`dash.finance.kind.${c.kind}`), c.budget ? `${t('dash.finance.budget')}: ${c.budget.amount} ${c.budget.currency}` : null].filter(Boolean).join(' · '))));
  if (c.kind === 'expense') {
    const form = h('form', { class: 'inline-form', novalidate: true },
      h('input', { inputmode: 'decimal', name: 'amount', 'aria-label': t('dash.finance.set_budget', { name: c.name }), placeholder: c.budget?.amount ?? '200.00', class: 'short' }),
      h('button', { type: 'submit' }, t('dash.finance.set_budget', { name: c.name })), formError());
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const amount = form.elements.amount.value.trim();
      if (!amount) return;
      try {
        await A.api('PUT', `/finance/categories/${c.id}/budget`, { amount, currency: c.budget?.currency || A.user?.currency || 'EUR', from_month: summary.period.from.slice(0, 7) });
        toast(t('dash.saved'));
        ctx.refresh();
      } catch (error) { showProblem(form, error); }
    });
    row.append(form);
  }
  row.append(h('button', { type: 'button', class: 'danger', onclick: async () => {
    try { await A.api('DELETE', `/finance/categories/${c.id}`); ctx.refresh(); } catch (error) { reportError(error); }
  } }, t('dash.delete_item', { name: c.name })));
  return row;
}

function categoryForm(done) {
  const form = h('form', { class: 'inline-card', novalidate: true }, h('h3', {}, t('dash.finance.new_category')), formError(),
    h('div', { class: 'row' },
      field('dash.name', input({ required: true }), { name: 'name' }),
      field('dash.emoji', input({ class: 'short' }), { name: 'emoji' }),
      field('dash.finance.kind', select([['expense', t('dash.finance.kind.expense')], ['income', t('dash.finance.kind.income')]], 'expense'), { name: 'kind' })),
    h('button', { type: 'submit', class: 'primary' }, t('dash.add')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = values(form);
    try { await A.api('POST', '/finance/categories', { name: v.name ?? '', kind: v.kind, ...(v.emoji ? { emoji: v.emoji } : {}) }); toast(t('dash.saved')); done(); }
    catch (error) { showProblem(form, error); }
  });
  return form;
}

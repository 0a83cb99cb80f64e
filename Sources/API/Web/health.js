// Health: the recovery score over 30 or 90 days, last night's stages over time with their
// totals, daily series (steps, heart rate min/avg/max, HRV, resting heart rate, weight),
// workouts, and the data checks with acknowledge. A health change from the stream is read again
// with its position as min_position, so the page never shows figures older than the change.
import * as A from './api.js';
import { h, s, card, empty, badge, barChart, dataTable, reportError, tone } from './ui.js';

const { t } = A;
const STAGES = ['awake', 'rem', 'core', 'deep', 'asleep', 'in_bed'];

export async function renderHealth(root, ctx) {
  const days = ctx.rest[0] === '90' ? 90 : 30;
  const since = ctx.today?.area === 'health' ? `&min_position=${encodeURIComponent(ctx.today.position)}` : '';
  const metrics = 'steps,heart_rate,hrv_sdnn,resting_heart_rate,body_mass';
  const [recovery, nights, daily, workouts, findings] = await Promise.all([
    A.get(`/health/recovery?days=${days}${since}`), A.get(`/health/sleep?days=7${since}`), A.get(`/health/daily?days=30&metrics=${metrics}${since}`),
    A.get(`/health/workouts?days=30${since}`), A.get(`/health/quality?status=open${since}`)]);
  root.append(h('h1', { class: 'page-title' }, t('dash.nav.health')));
  root.append(h('nav', { class: 'tabs', 'aria-label': t('dash.health.recovery') }, [30, 90].map((d) =>
    h('a', { href: `#/health/${d}`, 'aria-current': d === days ? 'page' : false }, t('dash.health.days', { days: d })))));

  const scored = (recovery.items || []);
  const points = scored.map((r) => ({ label: r.date, value: r.score, text: r.score === null ? r.status_label : `${r.score} · ${r.status_label}`, token: r.color_token }));
  const last = scored[scored.length - 1];
  root.append(card('dash.health.recovery',
    last ? h('p', { class: 'score-line' }, h('span', { class: `score ${tone(last.color_token)}` }, last.score === null ? '—' : String(last.score)),
      badge(last.status_label, last.color_token), last.methodology ? h('span', { class: 'badge badge-method' }, last.methodology.label) : null) : null,
    scored.some((r) => r.score !== null) ? barChart(points, { title: `${t('dash.health.recovery')} · ${t('dash.health.days', { days })}` }) : empty('dash.health.no_data')));

  const night = nights.items[nights.items.length - 1];
  root.append(card('dash.health.night', night ? hypnogram(night) : empty('dash.health.no_data')));

  const series = h('div', { class: 'series' });
  for (const metric of metrics.split(',')) {
    const rows = daily.days.filter((d) => d.metric === metric);
    if (!rows.length) continue;
    const unit = rows[0].unit;
    const title = `${t(`metric.${metric}`)} (${unit})`;
    const chart = barChart(rows.map((d) => ({ label: d.date, value: d.value,
      text: d.min !== undefined && d.max !== undefined ? `${t('dash.health.min')} ${d.min} · ${t('dash.health.avg')} ${d.value} · ${t('dash.health.max')} ${d.max}` : d.value })), { title, unit: '' });
    series.append(h('div', { class: 'series-item' }, h('h3', {}, title), chart));
  }
  root.append(card('dash.health.series', series.children.length ? series : empty('dash.health.no_data')));

  root.append(card('dash.health.workouts', workouts.items.length ? h('ul', { class: 'items' }, workouts.items.map((w) =>
    h('li', { class: 'item' }, h('span', { class: 'item-name' }, w.workout_type || w.type || ''), h('span', { class: 'muted' }, [w.start, w.duration_seconds ? `${Math.round(w.duration_seconds / 60)} ${t('unit.minutes_short')}` : null, w.source].filter(Boolean).join(' · '))))) : empty()));

  root.append(card('dash.health.findings', findings.items.length ? h('ul', { class: 'items' }, findings.items.map((f) => {
    const ack = h('button', { type: 'button', onclick: async () => {
      ack.disabled = true;
      try { await A.api('PATCH', `/health/quality/${f.id}`, { status: 'acknowledged' }); ctx.refresh(); } catch (error) { ack.disabled = false; reportError(error); }
    } }, t('dash.health.acknowledge_item', { name: f.type_label }));
    return h('li', { class: 'item' }, h('div', { class: 'item-main' }, h('span', { class: 'item-name' }, f.type_label), h('span', { class: 'muted' }, `${f.summary} · ${f.from}${f.to !== f.from ? ` – ${f.to}` : ''}`)),
      badge(f.severity_label, f.color_token), ack);
  })) : empty()));
}

/** Stages over the night: each segment drawn at its share of the night's span (drawing only). */
function hypnogram(night) {
  const start = Date.parse(night.start), end = Date.parse(night.end);
  const span = Math.max(end - start, 1);
  const width = 600, row = 18;
  const title = `${t('dash.health.hypnogram')} · ${night.date}`;
  const svg = s('svg', { viewBox: `0 0 ${width} ${row * STAGES.length}`, class: 'chart hypnogram', role: 'img', 'aria-label': title, preserveAspectRatio: 'none' });
  for (const seg of night.segments) {
    const y = STAGES.indexOf(seg.stage);
    if (y < 0) continue;
    const x0 = ((Date.parse(seg.start) - start) / span) * width, x1 = ((Date.parse(seg.end) - start) / span) * width;
    svg.append(s('rect', { x: x0, y: y * row + 2, width: Math.max(x1 - x0, 1), height: row - 4, class: `stage stage-${seg.stage}` },
      s('title', {}, `${t(`sleep.stage.${seg.stage}`)}: ${seg.start} – ${seg.end}`)));
  }
  const totals = [['asleep', night.asleep_minutes], ['deep', night.deep_minutes], ['core', night.core_minutes], ['rem', night.rem_minutes], ['awake', night.awake_minutes], ['in_bed', night.in_bed_minutes]];
  return h('figure', { class: 'chart-figure' },
    h('div', { class: 'hypno-wrap' }, h('div', { class: 'hypno-labels', 'aria-hidden': 'true' }, STAGES.map((st) => h('span', {}, t(`sleep.stage.${st}`)))), svg),
    h('dl', { class: 'figures' }, totals.map(([stage, minutes]) => h('div', {}, h('dt', {}, t(`sleep.stage.${stage}`)), h('dd', {}, `${minutes} ${t('unit.minutes_short')}`)))),
    dataTable(title, night.segments.map((seg) => ({ label: `${seg.start} – ${seg.end}`, value: t(`sleep.stage.${seg.stage}`) }))));
}

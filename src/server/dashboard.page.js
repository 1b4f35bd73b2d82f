// The capacity dashboard's script (plain browser JavaScript, no build step). Everything it shows comes
// from the GraphQL API at /graphql; it refreshes when the usageChanged or providerChanged subscription
// reports a change, and redraws the last hour (capacityHistory) every sampling interval. At any size of
// cloud it asks for aggregates and the first trees, never for every tree.
//
// Access: the page first asks without a token. A 401 means the server has tokens: the page asks for
// one, checks it, and keeps it in sessionStorage (this tab only) until "Forget token"; it goes in the
// Authorization header, never in the address and never in localStorage.
'use strict';

const ENDPOINT = '/graphql';
const TOKEN_KEY = 'placement-gql-token';
const $ = (id) => document.getElementById(id);
const fmt = new Intl.NumberFormat('en-US');
const pct = (r) => `${(r * 100).toFixed(1)}%`;
/** At or past this share used, a class is marked: vermillion, striped, and "▲" beside the figure. */
const HOT = 0.9;

// Okabe-Ito's palette (Wong, Nature Methods 8:441, 2011): told apart with every common colour-vision
// deficiency. Its yellow is left out (too pale on white). Lines also differ by dash and point shape.
const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#D55E00', '#56B4E9', '#000000'];
const BLUE = '#0072B2';
const ORANGE = '#E69F00';
const VERMILLION = '#D55E00';
const FREE_GREY = '#d4d4d4';
const DASHES = [[], [8, 4], [2, 3], [12, 4, 2, 4]];
const POINTS = ['circle', 'rect', 'triangle', 'rectRot', 'crossRot', 'star', 'rectRounded'];

let token = sessionStorage.getItem(TOKEN_KEY) || '';
let flavorNames = [];
const charts = {};

const MAIN = `query Dashboard {
  classes: capacity(groupBy: [RESOURCE_CLASS]) { providerCount resources { resourceClass total reserved capacity used free usedRatio } }
  aggregates: capacity(groupBy: [AGGREGATE]) { key { aggregate aggregateMembers(first: 3) { name traits } } providerCount fullness resources { resourceClass capacity used free usedRatio } }
  fullest: fullestTrees(first: 10) { key { root { uuid name } } fullness resources { resourceClass capacity used usedRatio } }
  flavorHeadroom { flavor { name vcpus memoryMb rootGb } headroom { fits atMost exact } }
}`;

const HISTORY = `query History {
  capacityHistory { intervalSeconds keptSeconds samples { at classes { resourceClass capacity used } flavors { flavor fits } } }
}`;

const DRILL = `query Drill($aggregate: UUID!) {
  fullestTrees(filter: { memberOf: [[$aggregate]] }, first: 10) { key { root { name } } fullness resources { resourceClass capacity used usedRatio } }
  flavorHeadroom { flavor { name } headroom { groups(by: AGGREGATE) { aggregate fits atMost exact } } }
}`;

const STRANDED = `query Stranded($flavor: String!) {
  flavor(name: $flavor) { headroom { fits stranded { resourceClass free left reasons { reason description amount providerCount } } } }
}`;

const REQUEST = `query Request($flavor: String!) {
  flavor(name: $flavor) { request { groups { suffix resources { resourceClass amount } required forbidden } groupPolicy rootRequired rootForbidden } }
}`;

const PROVIDER = `query Provider($name: String!) { resourceProviders(filter: { name: $name }, first: 1) { nodes { uuid } } }`;

const EXPLAIN = `query Why($request: CandidatesRequest!, $provider: UUID!) {
  explainCandidates(request: $request, provider: $provider, first: 1) {
    __typename
    ... on CandidatesExplanation { candidateTrees summary nodes { root { name } candidate problems { message } } }
    ... on RequestError { status message }
  }
}`;

/** The server answered 401: it has tokens, and this request had none or a wrong one. */
class Unauthorized extends Error {}

function headers(accept, bearer) {
  const h = { 'content-type': 'application/json', accept };
  if (bearer) h.authorization = `Bearer ${bearer}`;
  return h;
}

async function gql(query, variables, bearer = token) {
  const response = await fetch(ENDPOINT, { method: 'POST', headers: headers('application/graphql-response+json, application/json', bearer), body: JSON.stringify({ query, variables }) });
  if (response.status === 401) throw new Unauthorized('This server needs a bearer token.');
  const body = await response.json();
  if (body.errors && body.errors.length) throw new Error(body.errors.map((e) => e.message).join('; '));
  return body.data;
}

function status(text, bad) {
  const el = $('status');
  el.textContent = text;
  el.className = bad ? 'bad' : '';
}

function cell(row, text, cls) {
  const td = row.insertCell();
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function fill(tbodyParent, rows, each) {
  const body = tbodyParent.tBodies[0];
  body.replaceChildren();
  for (const item of rows) each(body.insertRow(), item);
}

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

/** Used / capacity per class as HTML bars: the class, a bar, the share in words. The label column is as wide as its longest label. */
function useBars(td, resources) {
  const wrap = el('div', 'bars');
  for (const r of resources) {
    const hot = r.usedRatio >= HOT;
    const label = el('span', 'use-label', r.resourceClass);
    const track = el('span', 'track');
    track.title = `${r.resourceClass}: ${fmt.format(r.used)} of ${fmt.format(r.capacity)} used`;
    const bar = el('span', hot ? 'fill hot' : 'fill');
    bar.style.width = pct(Math.min(1, Math.max(0, r.usedRatio)));
    track.append(bar);
    const value = el('span', hot ? 'use-value hot' : 'use-value', hot ? `${pct(r.usedRatio)} ▲` : pct(r.usedRatio));
    wrap.append(label, track, value);
  }
  td.append(wrap);
}

/** Diagonal stripes over a colour: what is marked by colour is marked by texture too. */
function stripes(color) {
  const size = 8;
  const c = document.createElement('canvas');
  c.width = c.height = size;
  const x = c.getContext('2d');
  x.fillStyle = color;
  x.fillRect(0, 0, size, size);
  x.strokeStyle = 'rgba(255, 255, 255, 0.75)';
  x.lineWidth = 2;
  x.beginPath();
  for (const o of [-size, 0, size]) {
    x.moveTo(o, size);
    x.lineTo(o + size, 0);
  }
  x.stroke();
  return x.createPattern(c, 'repeat');
}

/** The y axis of a horizontal bar chart as wide as its widest label, measured in the page's font: no label is cut. */
function fitLabels(scale) {
  const ctx = scale.ctx;
  ctx.save();
  ctx.font = Chart.helpers.toFont(scale.options.ticks.font).string;
  const widest = Math.max(0, ...scale.ticks.map((t) => ctx.measureText(String(t.label)).width));
  ctx.restore();
  scale.width = Math.max(scale.width, Math.ceil(widest) + scale.options.ticks.padding + 10);
}

/** A bar chart's box grows with its rows, so every row keeps its label (none skipped). */
function sizeFor(canvasId, rows) {
  $(canvasId).parentElement.style.height = `${Math.max(140, 30 * rows + 70)}px`;
}

function chart(id, config) {
  if (charts[id]) {
    charts[id].data = config.data;
    charts[id].options = config.options;
    charts[id].update('none');
    return;
  }
  charts[id] = new Chart($(id), config);
}

const hbar = (xTitle, extra = {}) => ({
  indexAxis: 'y',
  animation: false,
  maintainAspectRatio: false,
  scales: {
    x: { stacked: true, title: { display: true, text: xTitle }, ...extra.x },
    y: { stacked: true, ticks: { autoSkip: false }, afterFit: fitLabels },
  },
  plugins: { legend: { position: 'bottom' }, ...extra.plugins },
});

function drawClasses(group) {
  const resources = group.flatMap((g) => g.resources);
  fill($('classes'), resources, (row, r) => {
    row.dataset.class = r.resourceClass;
    cell(row, r.resourceClass);
    cell(row, fmt.format(r.capacity), 'num capacity');
    cell(row, r.usedRatio >= HOT ? `${fmt.format(r.used)} ▲` : fmt.format(r.used), r.usedRatio >= HOT ? 'num used hot' : 'num used');
    cell(row, fmt.format(r.free), 'num free');
    cell(row, fmt.format(r.reserved), 'num');
    cell(row, fmt.format(group.find((g) => g.resources[0] === r).providerCount), 'num');
  });
  sizeFor('classes-chart', resources.length);
  const share = (r) => Math.min(100, Math.max(0, r.usedRatio * 100));
  chart('classes-chart', {
    type: 'bar',
    data: {
      labels: resources.map((r) => r.resourceClass),
      datasets: [
        { label: 'used', data: resources.map((r) => (r.usedRatio < HOT ? share(r) : 0)), backgroundColor: BLUE, raw: resources.map((r) => r.used) },
        { label: `used, ${HOT * 100}% or more (striped)`, data: resources.map((r) => (r.usedRatio >= HOT ? share(r) : 0)), backgroundColor: stripes(VERMILLION), borderColor: VERMILLION, borderWidth: 1, raw: resources.map((r) => r.used) },
        { label: 'free', data: resources.map((r) => 100 - share(r)), backgroundColor: FREE_GREY, raw: resources.map((r) => r.free) },
      ],
    },
    options: hbar('% of capacity', {
      x: { max: 100 },
      plugins: {
        tooltip: { filter: (c) => c.parsed.x > 0, callbacks: { label: (c) => `${c.dataset.label}: ${fmt.format(c.dataset.raw[c.dataIndex])} (${c.parsed.x.toFixed(1)}%)` } },
        legend: { position: 'bottom', labels: { filter: (item, data) => data.datasets[item.datasetIndex].data.some((v) => v > 0) } },
      },
    }),
  });
}

function drawFlavors(flavors) {
  fill($('flavors'), flavors, (row, f) => {
    row.dataset.flavor = f.flavor.name;
    cell(row, `${f.flavor.name} (${f.flavor.vcpus} vCPU, ${fmt.format(f.flavor.memoryMb)} MiB, ${f.flavor.rootGb} GiB)`);
    cell(row, fmt.format(f.headroom.fits), 'num fits');
    cell(row, fmt.format(f.headroom.atMost), 'num atmost');
    cell(row, f.headroom.exact ? 'yes' : 'bound', 'exact');
  });
  if (!flavors.length) {
    const row = $('flavors').tBodies[0].insertRow();
    cell(row, 'No flavor is stored: create one (createFlavor) to see its headroom.').colSpan = 4;
  }
  sizeFor('flavors-chart', flavors.length);
  chart('flavors-chart', {
    type: 'bar',
    data: {
      labels: flavors.map((f) => f.flavor.name),
      datasets: [
        { label: 'fits', data: flavors.map((f) => f.headroom.fits), backgroundColor: BLUE },
        { label: 'may fit too, up to at most (striped)', data: flavors.map((f) => f.headroom.atMost - f.headroom.fits), backgroundColor: stripes(ORANGE), borderColor: ORANGE, borderWidth: 1 },
      ],
    },
    options: hbar('servers', { plugins: { legend: { position: 'bottom', labels: { filter: (item, data) => data.datasets[item.datasetIndex].data.some((v) => v > 0) } } } }),
  });
}

/** Line styles: colour, dash and point shape all differ, so lines are told apart without colour. */
const lineStyle = (i, points) => ({
  borderColor: OKABE_ITO[i % OKABE_ITO.length],
  backgroundColor: OKABE_ITO[i % OKABE_ITO.length],
  borderDash: DASHES[i % DASHES.length],
  pointStyle: POINTS[i % POINTS.length],
  pointRadius: points <= 1 ? 5 : points <= 30 ? 3 : 2,
  borderWidth: 2,
  spanGaps: true,
});

const clock = (ms, seconds = true) => new Date(ms).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', ...(seconds ? { second: '2-digit' } : {}) });
/** Time ticks on round steps (seconds to half hours), at most 8 over the span. */
const STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800].map((s) => s * 1000);
const stepFor = (span) => STEPS.find((s) => span / s <= 8) ?? STEPS[STEPS.length - 1];

function lines(id, samples, intervalMs, series, yTitle, yOptions, tooltipValue) {
  const times = samples.map((s) => Date.parse(s.at));
  const first = times[0] ?? Date.now();
  const last = times[times.length - 1] ?? Date.now();
  // The time sampled, from the first sample to the last; one sample stands in a window of an interval either side.
  const pad = first === last ? intervalMs : 0;
  const step = stepFor(last - first + 2 * pad);
  chart(id, {
    type: 'line',
    data: { datasets: series.map((s, i) => ({ label: s.label, data: s.points, ...lineStyle(i, samples.length) })) },
    options: {
      animation: false,
      maintainAspectRatio: false,
      parsing: false,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      scales: {
        x: {
          type: 'linear',
          min: first - pad,
          max: last + pad,
          title: { display: true, text: 'time' },
          ticks: { callback: (v) => clock(v, step < 60_000), maxRotation: 0, autoSkipPadding: 16 },
          // Round times only (not the ends of the span).
          afterBuildTicks: (scale) => {
            const ticks = [];
            for (let v = Math.ceil(scale.min / step) * step; v <= scale.max; v += step) ticks.push({ value: v });
            scale.ticks = ticks;
          },
        },
        y: { title: { display: true, text: yTitle }, ...yOptions },
      },
      plugins: {
        legend: { position: 'bottom', labels: { usePointStyle: true, boxHeight: 8 } },
        tooltip: { callbacks: { title: (items) => (items.length ? clock(items[0].parsed.x) : ''), label: (c) => `${c.dataset.label}: ${tooltipValue(c.parsed.y)}` } },
      },
    },
  });
}

function drawHistory(history) {
  const samples = history.samples;
  $('history-note').textContent =
    history.intervalSeconds === null
      ? 'This server keeps no history (placement-gql serve keeps the last hour).'
      : `Sampled by the server every ${history.intervalSeconds} s, the last ${Math.round(history.keptSeconds / 60)} minutes (kept in its memory: a restart starts afresh). ${samples.length} sample${samples.length === 1 ? '' : 's'} so far.`;
  const classes = [...new Set(samples.flatMap((s) => s.classes.map((c) => c.resourceClass)))].sort();
  const flavors = [...new Set(samples.flatMap((s) => s.flavors.map((f) => f.flavor)))].sort();
  const at = (s) => Date.parse(s.at);
  const intervalMs = (history.intervalSeconds ?? 30) * 1000;
  lines(
    'history-classes-chart',
    samples,
    intervalMs,
    classes.map((name) => ({
      label: name,
      points: samples.map((s) => {
        const c = s.classes.find((x) => x.resourceClass === name);
        return { x: at(s), y: c && c.capacity > 0 ? (c.used / c.capacity) * 100 : null };
      }),
    })),
    '% of capacity used',
    { min: 0, max: 100 },
    (y) => `${y.toFixed(1)}% used`,
  );
  lines(
    'history-flavors-chart',
    samples,
    intervalMs,
    flavors.map((name) => ({
      label: name,
      points: samples.map((s) => {
        const f = s.flavors.find((x) => x.flavor === name);
        return { x: at(s), y: f ? f.fits : null };
      }),
    })),
    'servers that fit',
    { min: 0, ticks: { precision: 0 } },
    (y) => `${fmt.format(y)} fit`,
  );
}

const AGGREGATE_ROWS = 50;
/** Each aggregate's members as the page last read them, for the drill-down's title. */
const aggregateNames = new Map();

const shortUuid = (uuid) => `${uuid.slice(0, 8)}…`;

/** How an aggregate is named on the page: its first members (sharing providers marked), and how many more. */
function aggregateLabel(g) {
  const shown = g.key.aggregateMembers.map((p) => (p.traits.includes('MISC_SHARES_VIA_AGGREGATE') ? `${p.name} (sharing)` : p.name));
  const more = g.providerCount - shown.length;
  return more > 0 ? `${shown.join(', ')} +${fmt.format(more)} more` : shown.join(', ');
}

function drawAggregates(groups) {
  const named = groups.filter((g) => g.key.aggregate).sort((a, b) => b.fullness - a.fullness);
  aggregateNames.clear();
  fill($('aggregates'), named.slice(0, AGGREGATE_ROWS), (row, g) => {
    const uuid = g.key.aggregate;
    const label = aggregateLabel(g);
    aggregateNames.set(uuid, label);
    row.dataset.aggregate = uuid;
    const td = cell(row, '', 'aggregate');
    const button = el('button', 'link', label || shortUuid(uuid));
    button.type = 'button';
    button.title = `Aggregate ${uuid}: its fullest trees and each flavor's headroom there`;
    button.addEventListener('click', () => drill(uuid));
    const code = el('code', 'uuid', shortUuid(uuid));
    code.title = uuid;
    td.append(button, el('br'), code);
    cell(row, fmt.format(g.providerCount), 'num');
    useBars(row.insertCell(), g.resources);
  });
  if (named.length > AGGREGATE_ROWS) {
    const row = $('aggregates').tBodies[0].insertRow();
    cell(row, `${named.length - AGGREGATE_ROWS} more aggregates, less full, not shown.`).colSpan = 3;
  }
  if (!named.length) cell($('aggregates').tBodies[0].insertRow(), 'No provider is in an aggregate.').colSpan = 3;
}

function drawTrees(table, groups) {
  fill(table, groups, (row, g) => {
    cell(row, g.key.root.name, 'name');
    cell(row, pct(g.fullness), 'num');
    useBars(row.insertCell(), g.resources);
  });
}

let drilled = null;

async function drill(aggregate) {
  drilled = aggregate;
  $('drill').hidden = false;
  const members = aggregateNames.get(aggregate);
  $('drill-title').textContent = `Aggregate ${shortUuid(aggregate)}${members ? `: ${members}` : ''}`;
  $('drill-title').title = aggregate;
  try {
    const data = await gql(DRILL, { aggregate });
    drawTrees($('drill-trees'), data.fullestTrees);
    fill($('drill-flavors'), data.flavorHeadroom, (row, f) => {
      const g = f.headroom.groups.find((x) => x.aggregate === aggregate) || { fits: 0, atMost: 0 };
      cell(row, f.flavor.name, 'name');
      cell(row, fmt.format(g.fits), 'num');
      cell(row, fmt.format(g.atMost), 'num');
    });
  } catch (error) {
    failed(error);
  }
}

function options(select, names) {
  const before = select.value;
  select.replaceChildren(...names.map((n) => new Option(n, n)));
  if (names.includes(before)) select.value = before;
}

async function drawStranded() {
  const flavor = $('stranded-flavor').value;
  const body = $('stranded').tBodies[0];
  if (!flavor) {
    body.replaceChildren();
    cell(body.insertRow(), 'No flavor to judge by.').colSpan = 4;
    return;
  }
  const data = await gql(STRANDED, { flavor });
  fill($('stranded'), data.flavor.headroom.stranded, (row, s) => {
    cell(row, s.resourceClass);
    cell(row, fmt.format(s.free), 'num');
    cell(row, fmt.format(s.left), 'num');
    cell(row, s.reasons.map((r) => `${fmt.format(r.amount)} on ${r.providerCount} provider(s): ${r.description}`).join('; ') || 'nothing left');
  });
}

async function refresh() {
  try {
    const data = await gql(MAIN);
    showPanels();
    drawClasses(data.classes);
    drawFlavors(data.flavorHeadroom);
    drawAggregates(data.aggregates);
    drawTrees($('fullest'), data.fullest);
    flavorNames = data.flavorHeadroom.map((f) => f.flavor.name);
    options($('stranded-flavor'), flavorNames);
    options($('why-flavor'), flavorNames);
    $('why-providers').replaceChildren(...data.fullest.map((g) => new Option(g.key.root.name)));
    await drawStranded();
    if (drilled) await drill(drilled);
    await refreshHistory();
    status(`Up to date at ${clock(Date.now())}${live ? ', live' : ''}.`);
  } catch (error) {
    failed(error);
  }
}

let historyTimer = null;

async function refreshHistory() {
  const { capacityHistory } = await gql(HISTORY);
  drawHistory(capacityHistory);
  // The server samples every interval whether or not anything changed: follow it.
  if (!historyTimer && capacityHistory.intervalSeconds) {
    historyTimer = setInterval(() => refreshHistory().catch(failed), Math.max(1, capacityHistory.intervalSeconds) * 1000);
  }
}

function failed(error) {
  if (error instanceof Unauthorized) askForToken(token ? 'The token kept for this tab was refused: enter another.' : '');
  else status(error.message, true);
}

let pending = null;
function refreshSoon() {
  if (pending) return;
  pending = setTimeout(() => {
    pending = null;
    refresh();
  }, 500);
}

/** Follows a subscription over server-sent events (fetch, so the bearer token goes in a header). */
let live = false;
let stream = null;
async function follow() {
  if (stream) stream.abort();
  const controller = (stream = new AbortController());
  try {
    const response = await fetch(ENDPOINT, {
      method: 'POST',
      headers: headers('text/event-stream', token),
      body: JSON.stringify({ query: 'subscription Changes { usageChanged { consumerUuid } }' }),
      signal: controller.signal,
    });
    const other = fetch(ENDPOINT, {
      method: 'POST',
      headers: headers('text/event-stream', token),
      body: JSON.stringify({ query: 'subscription ProviderChanges { providerChanged { kind } }' }),
      signal: controller.signal,
    });
    if (response.status === 401) return;
    if (!response.ok) throw new Error(`subscription refused (${response.status})`);
    live = true;
    await Promise.all([read(response), other.then(read)]);
  } catch (error) {
    if (controller.signal.aborted) return;
  }
  live = false;
  if (!controller.signal.aborted) setTimeout(follow, 5000);
}

async function read(response) {
  if (!response.ok || !response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (/^event: next/m.test(event)) refreshSoon();
    }
  }
}

function stopFollowing() {
  if (stream) stream.abort();
  stream = null;
  live = false;
  if (historyTimer) clearInterval(historyTimer);
  historyTimer = null;
}

/** Nothing read with a token stays on the page once the token is gone. */
function clearPanels() {
  for (const id of Object.keys(charts)) {
    charts[id].destroy();
    delete charts[id];
  }
  for (const table of document.querySelectorAll('#panels table')) if (table.tBodies[0]) table.tBodies[0].replaceChildren();
  $('drill').hidden = true;
  drilled = null;
  $('why-answer').replaceChildren();
}

function showPanels() {
  $('login').hidden = true;
  $('panels').hidden = false;
  $('forget').hidden = !token;
  $('access').textContent = token ? 'Token kept for this tab only' : 'Open access (this server has no tokens)';
}

function askForToken(message) {
  stopFollowing();
  clearPanels();
  if (token) sessionStorage.removeItem(TOKEN_KEY);
  token = '';
  $('panels').hidden = true;
  $('forget').hidden = true;
  $('access').textContent = '';
  $('login').hidden = false;
  $('login-error').textContent = message;
  status('A bearer token is needed.', true);
  $('token').focus();
}

async function explainHere(event) {
  event.preventDefault();
  const answer = $('why-answer');
  answer.textContent = 'Explaining...';
  try {
    const flavor = $('why-flavor').value;
    if (!flavor) throw new Error('No flavor to explain.');
    const wanted = $('why-provider').value.trim();
    let uuid = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(wanted) ? wanted : null;
    if (!uuid) {
      const found = await gql(PROVIDER, { name: wanted });
      if (!found.resourceProviders.nodes.length) throw new Error(`No provider is named ${wanted}.`);
      uuid = found.resourceProviders.nodes[0].uuid;
    }
    const { flavor: f } = await gql(REQUEST, { flavor });
    const r = f.request;
    const request = {
      groups: r.groups.map((g) => ({ suffix: g.suffix, resources: g.resources, required: g.required, forbidden: g.forbidden })),
      groupPolicy: r.groupPolicy ? r.groupPolicy.toUpperCase() : null,
      rootRequired: r.rootRequired,
      rootForbidden: r.rootForbidden,
    };
    const data = await gql(EXPLAIN, { request, provider: uuid });
    const e = data.explainCandidates;
    answer.replaceChildren();
    if (e.__typename === 'RequestError') {
      answer.append(el('p', 'verdict', `Placement refuses the request (${e.status}): ${e.message}`));
      return;
    }
    const tree = e.nodes[0];
    answer.append(el('p', 'verdict', tree ? (tree.candidate ? `${flavor} fits on ${tree.root.name}.` : `${flavor} does not fit on ${tree.root.name}.`) : e.summary));
    if (tree && tree.problems.length) {
      const list = el('ul');
      for (const p of tree.problems) list.append(el('li', '', p.message));
      answer.append(list);
    }
    answer.append(el('p', 'note', e.summary));
  } catch (error) {
    if (error instanceof Unauthorized) failed(error);
    else answer.textContent = error.message;
  }
}

$('login-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const candidate = $('token').value.trim();
  $('login-error').textContent = 'Checking the token...';
  try {
    await gql('query TokenCheck { __typename }', undefined, candidate);
  } catch (error) {
    $('login-error').textContent = error instanceof Unauthorized ? 'The server refused this token (401): check it and try again.' : error.message;
    $('token').select();
    return;
  }
  token = candidate;
  sessionStorage.setItem(TOKEN_KEY, token);
  $('token').value = '';
  $('login-error').textContent = '';
  status('Loading...');
  await refresh();
  follow();
});
$('forget').addEventListener('click', () => {
  askForToken('The token was forgotten: this tab no longer holds it.');
});
$('stranded-flavor').addEventListener('change', () => drawStranded().catch(failed));
$('why').addEventListener('submit', explainHere);
refresh().then(() => {
  if (!$('panels').hidden) follow();
});

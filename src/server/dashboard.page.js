// The capacity dashboard's script (plain browser JavaScript, no build step). Everything it shows comes
// from the GraphQL API at /graphql; it refreshes when the usageChanged or providerChanged subscription
// reports a change. At any size of cloud it asks for aggregates and the first trees, never for every tree.
'use strict';

const ENDPOINT = '/graphql';
const $ = (id) => document.getElementById(id);
const fmt = new Intl.NumberFormat('en-US');
const pct = (r) => `${(r * 100).toFixed(1)}%`;
let token = sessionStorage.getItem('placement-gql-token') || '';
let flavorNames = [];
const charts = {};

const MAIN = `query Dashboard {
  classes: capacity(groupBy: [RESOURCE_CLASS]) { providerCount resources { resourceClass total reserved capacity used free usedRatio } }
  aggregates: capacity(groupBy: [AGGREGATE]) { key { aggregate } providerCount fullness resources { resourceClass capacity used free usedRatio } }
  fullest: fullestTrees(first: 10) { key { root { uuid name } } fullness resources { resourceClass capacity used usedRatio } }
  flavorHeadroom { flavor { name vcpus memoryMb rootGb } headroom { fits atMost exact } }
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

function headers(accept) {
  const h = { 'content-type': 'application/json', accept };
  if (token) h.authorization = `Bearer ${token}`;
  return h;
}

async function gql(query, variables) {
  const response = await fetch(ENDPOINT, { method: 'POST', headers: headers('application/graphql-response+json, application/json'), body: JSON.stringify({ query, variables }) });
  if (response.status === 401 || response.status === 403) throw new Error('This server needs a bearer token: enter one above.');
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

/** Small bars of used / capacity per class, as HTML (tables of many rows stay light). */
function useBars(td, resources) {
  const wrap = document.createElement('div');
  wrap.className = 'bars';
  for (const r of resources) {
    const bar = document.createElement('div');
    bar.className = 'bar';
    bar.title = `${r.resourceClass}: ${fmt.format(r.used)} of ${fmt.format(r.capacity)} used`;
    const fillEl = document.createElement('span');
    fillEl.style.width = pct(Math.min(1, r.usedRatio));
    if (r.usedRatio >= 0.9) fillEl.className = 'hot';
    const label = document.createElement('em');
    label.textContent = `${r.resourceClass} ${pct(r.usedRatio)}`;
    bar.append(fillEl, label);
    wrap.append(bar);
  }
  td.append(wrap);
}

function chart(id, config) {
  if (charts[id]) {
    charts[id].data = config.data;
    charts[id].update('none');
    return;
  }
  charts[id] = new Chart($(id), config);
}

function drawClasses(group) {
  const resources = group ? group.flatMap((g) => g.resources) : [];
  fill($('classes'), resources, (row, r) => {
    row.dataset.class = r.resourceClass;
    cell(row, r.resourceClass);
    cell(row, fmt.format(r.capacity), 'num capacity');
    cell(row, fmt.format(r.used), 'num used');
    cell(row, fmt.format(r.free), 'num free');
    cell(row, fmt.format(r.reserved), 'num');
    cell(row, fmt.format(group.find((g) => g.resources[0] === r).providerCount), 'num');
  });
  chart('classes-chart', {
    type: 'bar',
    data: {
      labels: resources.map((r) => r.resourceClass),
      datasets: [
        { label: 'used', data: resources.map((r) => r.usedRatio * 100), backgroundColor: '#c0504d', raw: resources.map((r) => r.used) },
        { label: 'free', data: resources.map((r) => Math.max(0, 100 - r.usedRatio * 100)), backgroundColor: '#9bbb59', raw: resources.map((r) => r.free) },
      ],
    },
    options: {
      indexAxis: 'y',
      animation: false,
      maintainAspectRatio: false,
      scales: { x: { stacked: true, max: 100, title: { display: true, text: '% of capacity' } }, y: { stacked: true } },
      plugins: { tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${fmt.format(c.dataset.raw[c.dataIndex])} (${c.parsed.x.toFixed(1)}%)` } } },
    },
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
  chart('flavors-chart', {
    type: 'bar',
    data: {
      labels: flavors.map((f) => f.flavor.name),
      datasets: [
        { label: 'fits', data: flavors.map((f) => f.headroom.fits), backgroundColor: '#4f81bd' },
        { label: 'at most (if more)', data: flavors.map((f) => f.headroom.atMost - f.headroom.fits), backgroundColor: '#b9cde5' },
      ],
    },
    options: { indexAxis: 'y', animation: false, maintainAspectRatio: false, scales: { x: { stacked: true, title: { display: true, text: 'servers' } }, y: { stacked: true } } },
  });
}

const AGGREGATE_ROWS = 50;

function drawAggregates(groups) {
  const named = groups.filter((g) => g.key.aggregate).sort((a, b) => b.fullness - a.fullness);
  fill($('aggregates'), named.slice(0, AGGREGATE_ROWS), (row, g) => {
    row.dataset.aggregate = g.key.aggregate;
    const td = cell(row, '');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'link';
    button.textContent = g.key.aggregate;
    button.addEventListener('click', () => drill(g.key.aggregate));
    td.append(button);
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
    cell(row, g.key.root.name);
    cell(row, pct(g.fullness), 'num');
    useBars(row.insertCell(), g.resources);
  });
}

let drilled = null;

async function drill(aggregate) {
  drilled = aggregate;
  $('drill').hidden = false;
  $('drill-title').textContent = `Aggregate ${aggregate}`;
  try {
    const data = await gql(DRILL, { aggregate });
    drawTrees($('drill-trees'), data.fullestTrees);
    fill($('drill-flavors'), data.flavorHeadroom, (row, f) => {
      const g = f.headroom.groups.find((x) => x.aggregate === aggregate) || { fits: 0, atMost: 0 };
      cell(row, f.flavor.name);
      cell(row, fmt.format(g.fits), 'num');
      cell(row, fmt.format(g.atMost), 'num');
    });
  } catch (error) {
    status(error.message, true);
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
    status(`Up to date at ${new Date().toLocaleTimeString('en-GB')}${live ? ', live' : ''}.`);
  } catch (error) {
    status(error.message, true);
  }
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
      headers: headers('text/event-stream'),
      body: JSON.stringify({ query: 'subscription Changes { usageChanged { consumerUuid } }' }),
      signal: controller.signal,
    });
    const other = fetch(ENDPOINT, {
      method: 'POST',
      headers: headers('text/event-stream'),
      body: JSON.stringify({ query: 'subscription ProviderChanges { providerChanged { kind } }' }),
      signal: controller.signal,
    });
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
      const refused = document.createElement('p');
      refused.className = 'verdict';
      refused.textContent = `Placement refuses the request (${e.status}): ${e.message}`;
      answer.append(refused);
      return;
    }
    const tree = e.nodes[0];
    const head = document.createElement('p');
    head.className = 'verdict';
    head.textContent = tree ? (tree.candidate ? `${flavor} fits on ${tree.root.name}.` : `${flavor} does not fit on ${tree.root.name}.`) : e.summary;
    answer.append(head);
    if (tree && tree.problems.length) {
      const list = document.createElement('ul');
      for (const p of tree.problems) {
        const li = document.createElement('li');
        li.textContent = p.message;
        list.append(li);
      }
      answer.append(list);
    }
    const summary = document.createElement('p');
    summary.className = 'note';
    summary.textContent = e.summary;
    answer.append(summary);
  } catch (error) {
    answer.textContent = error.message;
  }
}

$('auth').addEventListener('submit', (event) => {
  event.preventDefault();
  token = $('token').value.trim();
  sessionStorage.setItem('placement-gql-token', token);
  refresh();
  follow();
});
$('token').value = token;
$('stranded-flavor').addEventListener('change', () => drawStranded().catch((e) => status(e.message, true)));
$('why').addEventListener('submit', explainHere);
refresh();
follow();

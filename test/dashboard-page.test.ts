// The /dashboard page in Chromium, on a server with tokens and on an open one: the token prompt (a wrong
// token refused with a message, the right one kept in sessionStorage only and forgotten on demand),
// no prompt on an open server, Okabe-Ito colours with stripes and signs where colour means something,
// every label whole (measured in the browser), aggregates named by their members, and the last hour
// drawn from capacityHistory. Screenshots go to /tmp/dashboard-{login,tokens,open,narrow}.png.
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { loadAccessConfig } from '../src/server/access.js';
import { createServer } from '../src/server.js';
import { createNodeServer } from '../src/server/http.js';
import { launchChromium } from './browser.js';
import { demoCloud, tempDbFile } from './helpers.js';

const TOKEN = 'dashboard-page-token-0123456789';
const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#D55E00', '#56B4E9', '#000000'];
const NEUTRAL = ['#d4d4d4'];

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A server over the demo cloud, sampling its history every 400 ms so that lines have points to join. */
async function serve(tokens: boolean) {
  const db = openDatabase(tempDbFile());
  importSnapshot(db, demoCloud());
  const yoga = createServer({ db, access: tokens ? loadAccessConfig(undefined, `reader:${TOKEN},admin:${TOKEN}-admin`) : undefined, history: { intervalMs: 400 } });
  const node = createNodeServer(yoga);
  await new Promise<void>((done) => node.http.listen(0, '127.0.0.1', done));
  cleanups.push(() => node.stop(1_000), () => yoga.history?.stop(), () => db.close());
  const origin = `http://127.0.0.1:${(node.http.address() as AddressInfo).port}`;
  const gql = async (query: string, variables?: object) => {
    const response = await fetch(`${origin}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...(tokens ? { authorization: `Bearer ${TOKEN}-admin` } : {}) }, body: JSON.stringify({ query, variables }) });
    const body = (await response.json()) as any;
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  // Every bare-metal gold node taken: that class is full, and marked so.
  const { resourceProviders } = await gql('{ resourceProviders(filter: { resources: [{ resourceClass: "CUSTOM_BAREMETAL_GOLD", amount: 1 }] }) { nodes { uuid } } }');
  for (const [i, { uuid }] of resourceProviders.nodes.entries()) {
    const set = await gql(`mutation($i: SetAllocationsInput!) { setAllocations(input: $i) { __typename } }`, {
      i: { consumerUuid: `d0000000-0000-4000-8000-00000000001${i}`, projectId: 'p', userId: 'u', allocations: [{ providerUuid: uuid, resources: [{ resourceClass: 'CUSTOM_BAREMETAL_GOLD', amount: 1 }] }] },
    });
    expect(set.setAllocations.__typename).toBe('ConsumerPayload');
  }
  return { origin, gql };
}

/** Watches a page: errors, requests leaving the server, and any request whose address carries the token. */
function watch(page: Page, origin: string) {
  const problems: string[] = [];
  page.on('console', (message) => {
    // The page's first request to a server with tokens is refused (401), as it should be.
    if (message.type() === 'error' && !message.text().includes('401')) problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) problems.push(`outside request: ${url}`);
    if (url.includes(TOKEN)) problems.push(`token in an address: ${url}`);
  });
  return problems;
}

const panelsShown = (page: Page) => page.locator('#panels').isVisible();

/** What is cut or crowded, measured in the browser: HTML labels clipped, bars outside their cell, chart labels skipped or wider than their axis, legends past the canvas. */
function layoutProblems(page: Page) {
  return page.evaluate(() => {
    const problems: string[] = [];
    for (const e of document.querySelectorAll<HTMLElement>('.use-label, .use-value, button.link, code.uuid, h3, td, th, #access, #status')) {
      if (e.offsetParent === null) continue;
      if (e.scrollWidth > e.clientWidth + 1) problems.push(`cut: ${e.tagName}.${e.className} "${e.textContent}" (${e.scrollWidth} > ${e.clientWidth})`);
    }
    // Nothing wider than its panel: sections scroll only when the window is narrower than a table.
    for (const box of document.querySelectorAll<HTMLElement>('section, .two > div')) {
      if (box.offsetParent !== null && box.scrollWidth > box.clientWidth + 1) problems.push(`overflows: ${box.id || box.parentElement!.parentElement!.id} (${box.scrollWidth} > ${box.clientWidth})`);
    }
    for (const bars of document.querySelectorAll<HTMLElement>('.bars')) {
      const box = bars.parentElement!.getBoundingClientRect();
      for (const part of bars.children) {
        const r = part.getBoundingClientRect();
        if (r.left < box.left - 1 || r.right > box.right + 1) problems.push(`outside its cell: "${part.textContent}"`);
      }
    }
    const Chart = (window as any).Chart;
    for (const canvas of document.querySelectorAll('canvas')) {
      const chart = Chart.getChart(canvas);
      if (!chart) {
        problems.push(`${canvas.id}: not drawn`);
        continue;
      }
      const y = chart.scales.y;
      if (chart.config.type === 'bar') {
        if (y.ticks.length !== chart.data.labels.length) problems.push(`${canvas.id}: ${y.ticks.length} of ${chart.data.labels.length} labels shown`);
        const ctx = chart.ctx;
        ctx.save();
        ctx.font = Chart.helpers.toFont(y.options.ticks.font).string;
        for (const t of y.ticks) if (ctx.measureText(String(t.label)).width > y.width - y.options.ticks.padding) problems.push(`${canvas.id}: label ${t.label} wider than its axis`);
        ctx.restore();
      }
      if (y.left < 0) problems.push(`${canvas.id}: axis starts left of the canvas`);
      for (const box of chart.legend.legendHitBoxes) if (box.left < 0 || box.left + box.width > chart.width + 1) problems.push(`${canvas.id}: a legend item past the canvas`);
    }
    return problems;
  });
}

/** Every dataset's colours and line styles, as Chart.js draws them. */
function datasets(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('canvas')].flatMap((canvas) => {
      const chart = (window as any).Chart.getChart(canvas);
      return chart.data.datasets.map((d: any) => ({
        chart: canvas.id,
        label: d.label,
        background: typeof d.backgroundColor === 'string' ? d.backgroundColor : d.backgroundColor instanceof CanvasPattern ? 'stripes' : String(d.backgroundColor),
        border: d.borderColor ?? null,
        dash: JSON.stringify(d.borderDash ?? []),
        point: d.pointStyle ?? null,
        points: d.data.filter((p: any) => p !== null && (typeof p !== 'object' || p.y !== null)).length,
      }));
    }),
  );
}

async function checkPanels(page: Page) {
  // The classes, with the full one marked by more than colour.
  expect(await page.locator('#classes tbody tr').count()).toBe(7);
  expect(await page.locator('#classes tr[data-class="CUSTOM_BAREMETAL_GOLD"] .used').textContent()).toBe('3 ▲');
  const all = await datasets(page);
  const gold = all.find((d) => d.chart === 'classes-chart' && d.label.startsWith('used, 90%'))!;
  expect(gold.background).toBe('stripes');
  expect(await page.locator('.use-value.hot').count()).toBeGreaterThan(0);
  for (const text of await page.locator('.use-value.hot').allTextContents()) expect(text).toMatch(/%\s▲$/);
  // Okabe-Ito colours (and a neutral grey for free capacity) only: no red and green to tell apart.
  for (const d of all) {
    for (const colour of [d.background, d.border]) if (colour && colour !== 'stripes') expect([...OKABE_ITO, ...NEUTRAL], `${d.chart} ${d.label}`).toContain(colour);
  }
  // Lines differ by colour, dash and point shape all at once.
  for (const id of ['history-classes-chart', 'history-flavors-chart']) {
    const lines = all.filter((d) => d.chart === id);
    expect(lines.length).toBeGreaterThan(1);
    for (const key of ['border', 'dash', 'point'] as const) expect(new Set(lines.slice(0, 4).map((d) => d[key])).size, `${id} ${key}`).toBe(Math.min(4, lines.length));
  }
  // Aggregates named by their members, the sharing provider first, with the start of the uuid beside.
  const ceph = page.locator('#aggregates tr[data-aggregate="ec299c0e-295e-5892-9d78-9bdd5c38c819"]');
  expect(await ceph.locator('button.link').textContent()).toBe('ceph-pool-01 (sharing), compute-03, compute-04 +1 more');
  expect(await ceph.locator('code.uuid').textContent()).toBe('ec299c0e…');
  expect(await ceph.locator('code.uuid').getAttribute('title')).toBe('ec299c0e-295e-5892-9d78-9bdd5c38c819');
  await ceph.locator('button.link').click();
  await expect.poll(() => page.locator('#drill-title').textContent()).toBe('Aggregate ec299c0e…: ceph-pool-01 (sharing), compute-03, compute-04 +1 more');
  await expect.poll(() => page.locator('#drill-trees tbody tr').count(), { timeout: 10_000 }).toBeGreaterThan(0);
  // The last hour: several samples joined by lines, per class and per flavor.
  await expect.poll(async () => Math.min(...(await datasets(page)).filter((d) => d.chart.startsWith('history-')).map((d) => d.points)), { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
  expect(await page.locator('#history-note').textContent()).toMatch(/Sampled by the server every 0\.4 s, the last 60 minutes .* \d+ samples so far\./);
  expect(await layoutProblems(page)).toEqual([]);
}

describe('the dashboard page in Chromium', () => {
  it('asks for a token on a server with tokens, refuses a wrong one, keeps the right one in sessionStorage only, and forgets it', async () => {
    const { origin } = await serve(true);
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
      const page = await context.newPage();
      const problems = watch(page, origin);
      await page.goto(`${origin}/dashboard`);
      await page.locator('#login').waitFor({ state: 'visible', timeout: 30_000 });
      expect(await panelsShown(page)).toBe(false);
      expect(await page.locator('#status').textContent()).toBe('A bearer token is needed.');

      await page.fill('#token', 'not-the-token-0123456789');
      await page.click('#login-form button');
      await expect.poll(() => page.locator('#login-error').textContent()).toBe('The server refused this token (401): check it and try again.');
      expect(await panelsShown(page)).toBe(false);
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      await page.screenshot({ path: '/tmp/dashboard-login.png' });

      await page.fill('#token', TOKEN);
      await page.click('#login-form button');
      await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toContain('Up to date');
      expect(await page.locator('#login').isVisible()).toBe(false);
      expect(await page.locator('#access').textContent()).toBe('Token kept for this tab only');
      await checkPanels(page);

      // Kept for this tab's session only: not in localStorage, not in the address, not in the input.
      expect(await page.evaluate(() => sessionStorage.getItem('placement-gql-token'))).toBe(TOKEN);
      expect(await page.evaluate(() => Object.keys(localStorage).map((k) => `${k}=${localStorage.getItem(k)}`))).toEqual([]);
      expect(page.url()).toBe(`${origin}/dashboard`);
      expect(await page.inputValue('#token')).toBe('');
      await page.screenshot({ path: '/tmp/dashboard-tokens.png', fullPage: true });

      // A reload in the same tab needs no prompt; another tab's session has no token.
      await page.reload();
      await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toContain('Up to date');
      expect(await page.locator('#login').isVisible()).toBe(false);
      const other = await (await browser.newContext()).newPage();
      await other.goto(`${origin}/dashboard`);
      await other.locator('#login').waitFor({ state: 'visible', timeout: 30_000 });

      // Forgotten: asked again, nothing of the data left on the page, nothing kept.
      await page.click('#forget');
      await page.locator('#login').waitFor({ state: 'visible' });
      expect(await page.locator('#login-error').textContent()).toBe('The token was forgotten: this tab no longer holds it.');
      expect(await panelsShown(page)).toBe(false);
      expect(await page.locator('#classes tbody tr').count()).toBe(0);
      expect(await page.evaluate(() => sessionStorage.getItem('placement-gql-token'))).toBeNull();
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('asks for nothing on an open server, and shows the same panels', async () => {
    const { origin } = await serve(false);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const problems = watch(page, origin);
      await page.goto(`${origin}/dashboard`);
      await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toContain('Up to date');
      expect(await page.locator('#login').isVisible()).toBe(false);
      expect(await page.locator('#forget').isVisible()).toBe(false);
      expect(await page.locator('#access').textContent()).toBe('Open access (this server has no tokens)');
      await checkPanels(page);
      expect(await page.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);
      await page.screenshot({ path: '/tmp/dashboard-open.png', fullPage: true });
      // A narrow window: the labels still fit.
      await page.setViewportSize({ width: 700, height: 1000 });
      await expect.poll(() => layoutProblems(page)).toEqual([]);
      await page.screenshot({ path: '/tmp/dashboard-narrow.png', fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});

// The capacity dashboard as an operator sees it: `serve --demo` with a bearer token, /dashboard opened
// in Chromium with no network beyond this server, the token entered, the numbers checked against the
// API's, a flavor's headroom shown, "why not here?" answered, and a live refresh after an allocation.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDbFile } from './helpers.js';
import { launchChromium } from './browser.js';

const TOKEN = 'dashboard-test-token-0123456789';
let server: ChildProcess;
let origin = '';

async function gql(query: string, variables?: object) {
  const response = await fetch(`${origin}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as any;
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

beforeAll(async () => {
  const port = String(20000 + Math.floor(Math.random() * 20000));
  server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--demo', '--quiet', '--db', tempDbFile(), '--port', port], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PLACEMENT_TOKENS: `admin:${TOKEN}` },
  });
  const address = await new Promise<string>((resolve, reject) => {
    let output = '';
    server.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = output.match(/Dashboard: (\S+)/);
      if (match) resolve(match[1]!);
    });
    server.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  origin = new URL(address).origin;
  for (const [name, vcpus, memoryMb, rootGb] of [
    ['m1.small', 1, 2048, 20],
    ['m1.large', 8, 16384, 80],
  ] as const) {
    await gql(`mutation($i: CreateFlavorInput!) { createFlavor(input: $i) { __typename } }`, { i: { name, vcpus, memoryMb, rootGb } });
  }
});

afterAll(() => {
  server?.kill('SIGTERM');
});

const number = (text: string | null) => Number((text ?? '').replace(/,/g, ''));

describe('the capacity dashboard in a real browser', () => {
  it('loads only from this server, asks for the token, shows the API\'s numbers, answers "why not here?", and refreshes live', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1600 } });
      const problems: string[] = [];
      page.on('console', (message) => {
        // The first load, before the token is entered, is refused by the server as it should be.
        if (message.type() === 'error' && !message.text().includes('401')) problems.push(`console: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('request', (request) => {
        const url = request.url();
        if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) problems.push(`outside request: ${url}`);
      });
      await page.goto(`${origin}/dashboard`);
      await page.locator('#login').waitFor({ state: 'visible', timeout: 30_000 });
      await page.fill('#token', TOKEN);
      await page.click('#login-form button');
      await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toContain('Up to date');

      // Per class: the numbers the API gives.
      const api = await gql('{ capacity(groupBy: [RESOURCE_CLASS]) { resources { resourceClass capacity used free } } }');
      const rows = page.locator('#classes tbody tr');
      expect(await rows.count()).toBe(api.capacity.length);
      for (const { resources: [r] } of api.capacity) {
        const row = page.locator(`#classes tr[data-class="${r.resourceClass}"]`);
        expect(number(await row.locator('.capacity').textContent())).toBe(r.capacity);
        expect(number(await row.locator('.used').textContent())).toBe(r.used);
        expect(number(await row.locator('.free').textContent())).toBe(r.free);
      }

      // A flavor's headroom, as the API gives it.
      const headroom = await gql('{ flavor(name: "m1.large") { headroom { fits atMost } } }');
      const large = page.locator('#flavors tr[data-flavor="m1.large"]');
      expect(number(await large.locator('.fits').textContent())).toBe(headroom.flavor.headroom.fits);
      expect(headroom.flavor.headroom.fits).toBeGreaterThan(0);

      // Aggregates drill down.
      await page.locator('#aggregates button.link').first().click();
      await expect.poll(() => page.locator('#drill-trees tbody tr').count(), { timeout: 10_000 }).toBeGreaterThan(0);

      // Why not here?
      await page.selectOption('#why-flavor', 'm1.large');
      await page.fill('#why-provider', 'ironic-01');
      await page.click('#why button');
      await expect.poll(() => page.locator('#why-answer').textContent(), { timeout: 15_000 }).toContain('does not fit on ironic-01');
      await page.fill('#why-provider', 'compute-01');
      await page.click('#why button');
      await expect.poll(() => page.locator('#why-answer').textContent(), { timeout: 15_000 }).toMatch(/fits on compute-01|does not fit on compute-01/);

      // Live: an allocation made elsewhere shows up without reloading.
      const before = number(await page.locator('#classes tr[data-class="VCPU"] .used').textContent());
      const root = (await gql('{ resourceProviders(filter: { name: "compute-01" }) { nodes { uuid } } }')).resourceProviders.nodes[0].uuid;
      const set = await gql(
        `mutation($i: SetAllocationsInput!) { setAllocations(input: $i) { __typename } }`,
        { i: { consumerUuid: 'd0000000-0000-4000-8000-000000000001', projectId: 'p', userId: 'u', allocations: [{ providerUuid: root, resources: [{ resourceClass: 'VCPU', amount: 2 }] }] } },
      );
      expect(set.setAllocations.__typename).toBe('ConsumerPayload');
      await expect.poll(async () => number(await page.locator('#classes tr[data-class="VCPU"] .used').textContent()), { timeout: 15_000 }).toBe(before + 2);

      await page.screenshot({ path: 'test/.artifacts/dashboard.png', fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});

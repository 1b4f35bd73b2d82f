// GraphiQL as a newcomer sees it: `serve --demo`, the printed address opened in Chromium with no
// network beyond this server, the example query run, data shown. With tokens, the page asks for one
// first (GraphiQL's code is not even loaded before), keeps it in the tab only and sends it as the
// Authorization header.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDbFile } from './helpers.js';
import { launchChromium } from './browser.js';

const servers: ChildProcess[] = [];

/** An editor's text as a reader sees it: Monaco draws spaces as no-break spaces. */
const text = (content: string | null) => (content ?? '').replace(/\s+/g, ' ');
let address = '';
let tokenAddress = '';
const ADMIN = 'admin-token-for-graphiql-0123';

/** `serve --demo` on a port of its own; resolves with the GraphiQL address it prints. */
function serve(env: Record<string, string> = {}) {
  const port = String(20000 + Math.floor(Math.random() * 20000));
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--demo', '--quiet', '--db', tempDbFile(), '--port', port], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  servers.push(server);
  return new Promise<string>((resolve, reject) => {
    let output = '';
    server.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = output.match(/GraphiQL: (\S+)/);
      if (match) resolve(match[1]!);
    });
    server.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

beforeAll(async () => {
  [address, tokenAddress] = await Promise.all([serve(), serve({ PLACEMENT_TOKENS: `admin:${ADMIN}` })]);
});

afterAll(() => {
  for (const server of servers) server.kill('SIGTERM');
});

describe('GraphiQL in a real browser', () => {
  it('loads only from this server, opens on the example query, and runs it', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      const origin = new URL(address).origin;
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
      page.on('request', (request) => {
        const url = request.url();
        if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) problems.push(`outside request: ${url}`);
      });
      await page.goto(address);
      const editor = page.locator('.graphiql-query-editor');
      await expect.poll(async () => text(await editor.textContent()), { timeout: 30_000 }).toContain('query Dashboard');
      await page.locator('.graphiql-execute-button').click();
      const response = page.locator('.graphiql-response');
      await expect.poll(async () => text(await response.textContent()), { timeout: 30_000 }).toContain('"totalCount": 33');
      expect(text(await response.textContent())).toContain('compute-01');
      await page.screenshot({ path: 'test/.artifacts/graphiql.png' });
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('with tokens, asks for one before loading GraphiQL, keeps it in the tab only, and sends it', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const requests: string[] = [];
      page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname} ${request.headers().authorization ?? ''}`));
      await page.goto(tokenAddress);
      await page.locator('#sign-in').waitFor({ state: 'visible' });
      // The page alone: no GraphiQL code, no request for data.
      expect(requests).toEqual(['GET /graphql ']);
      expect(await page.locator('.graphiql-container').count()).toBe(0);

      await page.locator('#token').fill('not-the-token-0123456789');
      await page.locator('#sign-in button').click();
      await expect.poll(() => page.locator('#problem').textContent()).toBe('This token is not accepted.');
      expect(await page.locator('.graphiql-container').count()).toBe(0);

      const before = requests.length;
      await page.locator('#token').fill(ADMIN);
      await page.locator('#sign-in button').click();
      const editor = page.locator('.graphiql-query-editor');
      await expect.poll(async () => text(await editor.textContent()), { timeout: 30_000 }).toContain('query Dashboard');
      await page.locator('.graphiql-execute-button').click();
      const response = page.locator('.graphiql-response');
      await expect.poll(async () => text(await response.textContent()), { timeout: 30_000 }).toContain('"totalCount": 33');
      // Sent as the Authorization header, never shown in the headers editor, kept in sessionStorage only.
      const posts = requests.slice(before).filter((r) => r.startsWith('POST /graphql'));
      expect(posts.length).toBeGreaterThan(1);
      expect(posts.filter((r) => !r.endsWith(`Bearer ${ADMIN}`))).toEqual([]);
      expect(await page.locator('body').textContent()).not.toContain(ADMIN);
      const storage = await page.evaluate(() => ({ session: JSON.stringify(sessionStorage), local: JSON.stringify(localStorage) }));
      expect(storage.session).toContain(ADMIN);
      expect(storage.local).not.toContain(ADMIN);
      expect(storage.local).not.toContain('totalCount');

      // The tab remembers it: a reload opens GraphiQL at once.
      await page.reload();
      await expect.poll(async () => text(await page.locator('.graphiql-query-editor').textContent()), { timeout: 30_000 }).toContain('query Dashboard');
      expect(await page.locator('#sign-in').isVisible()).toBe(false);
    } finally {
      await browser.close();
    }
  });
});

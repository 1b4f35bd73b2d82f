// GraphiQL as a newcomer sees it: `serve --demo`, the printed address opened in Chromium with no
// network beyond this server, the example query run, data shown.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDbFile } from './helpers.js';
import { launchChromium } from './browser.js';

let server: ChildProcess;

/** An editor's text as a reader sees it: Monaco draws spaces as no-break spaces. */
const text = (content: string | null) => (content ?? '').replace(/\s+/g, ' ');
let address = '';

beforeAll(async () => {
  const port = String(20000 + Math.floor(Math.random() * 20000));
  server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--demo', '--quiet', '--db', tempDbFile(), '--port', port], { stdio: ['ignore', 'pipe', 'pipe'] });
  address = await new Promise<string>((resolve, reject) => {
    let output = '';
    server.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = output.match(/GraphiQL: (\S+)/);
      if (match) resolve(match[1]!);
    });
    server.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
});

afterAll(() => {
  server?.kill('SIGTERM');
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
});

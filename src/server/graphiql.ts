// GraphiQL served from the project's own files: yoga's stock page loads its code from a public CDN,
// which air-gapped control planes cannot reach. The page and its assets are the prebuilt ones of
// @graphql-yoga/graphiql; nothing leaves the machine.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'graphql-yoga';

export const GRAPHIQL_ASSETS_PATH = '/graphiql-assets/';

/** The files the page needs, by the name it asks for them under GRAPHIQL_ASSETS_PATH. */
export const ASSETS: Record<string, { file: string; type: string }> = {
  'graphiql.css': { file: 'graphiql.css', type: 'text/css; charset=utf-8' },
  'yoga-graphiql.umd.js': { file: 'yoga-graphiql.umd.js', type: 'text/javascript; charset=utf-8' },
  'editor.worker.js': { file: 'monacoeditorwork/editor.worker.bundle.js', type: 'text/javascript; charset=utf-8' },
  'json.worker.js': { file: 'monacoeditorwork/json.worker.bundle.js', type: 'text/javascript; charset=utf-8' },
  'graphql.worker.js': { file: 'monacoeditorwork/graphql.worker..bundle.js', type: 'text/javascript; charset=utf-8' },
};

// The built package carries them in dist/server/graphiql/ (`npm run build` copies them there), so that
// installing the server does not install GraphiQL's own build inputs (React, editors, other graphql
// versions); a clone reads them from the @graphql-yoga/graphiql development dependency.
export const graphiqlPackageDist = () => join(dirname(createRequire(import.meta.url).resolve('@graphql-yoga/graphiql/package.json')), 'dist');
const copied = fileURLToPath(new URL('./graphiql/', import.meta.url));
const distDir = existsSync(copied) ? copied : graphiqlPackageDist();
const loaded = new Map<string, Buffer>();

function asset(name: string): Buffer {
  let bytes = loaded.get(name);
  if (!bytes) {
    bytes = readFileSync(join(distDir, ASSETS[name]!.file));
    loaded.set(name, bytes);
  }
  return bytes;
}

export interface GraphiqlPage {
  title: string;
  /** The query the editor opens with (a `?query=` in the address still wins, as a shared link should). */
  query?: string;
  /**
   * The server needs a bearer token: the page first asks for one, checks it, keeps it in the tab's
   * sessionStorage only, and sends it as the Authorization header (never in the headers editor, never in
   * localStorage); GraphiQL's code is loaded only then. The page itself carries no data.
   */
  tokenRequired?: boolean;
}

/** The page: yoga's own markup, with every asset address on this server. */
export function renderGraphiqlPage(page: GraphiqlPage): string {
  const at = (name: string) => GRAPHIQL_ASSETS_PATH + name;
  const options = JSON.stringify({ title: page.title, query: page.query }).replace(/</g, '\\u003c');
  const head = (stylesheet: string) => `<!doctype html><html lang=en><head><meta charset=utf-8><title>${escapeHtml(page.title)}</title>
<link rel=icon href="data:,">${stylesheet}</head>
<body id=body class=no-focus-outline><noscript>GraphiQL needs JavaScript.</noscript>`;
  const workers = `const workerUrls = { editorWorkerService: ${JSON.stringify(at('editor.worker.js'))}, json: ${JSON.stringify(at('json.worker.js'))}, graphql: ${JSON.stringify(at('graphql.worker.js'))} };
self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (moduleId, label) => workerUrls[label] ?? workerUrls.editorWorkerService };`;
  if (!page.tokenRequired) {
    return `${head(`<link rel=stylesheet href="${at('graphiql.css')}">`)}<div id=root>Loading ${escapeHtml(page.title)}...</div>
<script>
${workers}
</script>
<script src="${at('yoga-graphiql.umd.js')}"></script>
<script>YogaGraphiQL.renderYogaGraphiQL(root, ${options});</script>
</body></html>`;
  }
  return `${head('')}<form id=sign-in hidden style="max-width:36rem;margin:4rem auto;font:16px system-ui,sans-serif;line-height:1.5">
<h1 style="font-size:1.4rem">${escapeHtml(page.title)}</h1>
<p>This server needs a bearer token. It is kept in this browser tab only and sent with each request as the Authorization header.</p>
<label>Bearer token <input id=token type=password autocomplete=off required style="width:100%;font:inherit;padding:.3rem"></label>
<p><button style="font:inherit;padding:.3rem 1rem">Open GraphiQL</button></p>
<p id=problem role=alert style="color:#b00020"></p></form>
<div id=root></div>
<script>
${workers}
// The dashboard's key too: one token for both pages in a tab.
const KEY = 'placement-gql-token';
const form = document.getElementById('sign-in');
const input = document.getElementById('token');
const problem = document.getElementById('problem');
// GraphiQL's own state (tabs, queries, answers) lives in this tab too, not in localStorage.
const tabStorage = {
  getItem: (key) => sessionStorage.getItem(key),
  setItem: (key, value) => sessionStorage.setItem(key, value),
  removeItem: (key) => sessionStorage.removeItem(key),
  get length() { return Object.keys(sessionStorage).filter((key) => key.startsWith('graphiql:')).length; },
  clear() { for (const key of Object.keys(sessionStorage)) if (key.startsWith('graphiql:')) sessionStorage.removeItem(key); },
};
async function accepted(token) {
  const answer = await fetch(location.pathname, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token }, body: '{"query":"{ __typename }"}' });
  return answer.status !== 401;
}
function openGraphiql(token) {
  form.hidden = true;
  root.textContent = 'Loading ' + ${JSON.stringify(page.title).replace(/</g, '\\u003c')} + '...';
  document.head.append(Object.assign(document.createElement('link'), { rel: 'stylesheet', href: ${JSON.stringify(at('graphiql.css'))} }));
  const script = document.createElement('script');
  script.src = ${JSON.stringify(at('yoga-graphiql.umd.js'))};
  script.onload = () => YogaGraphiQL.renderYogaGraphiQL(root, { ...${options}, additionalHeaders: { Authorization: 'Bearer ' + token }, shouldPersistHeaders: false, storage: tabStorage });
  document.body.append(script);
}
async function start(token) {
  if (token && (await accepted(token))) {
    sessionStorage.setItem(KEY, token);
    return openGraphiql(token);
  }
  sessionStorage.removeItem(KEY);
  problem.textContent = token ? 'This token is not accepted.' : '';
  form.hidden = false;
  input.focus();
}
form.addEventListener('submit', (event) => {
  event.preventDefault();
  start(input.value.trim());
});
start(sessionStorage.getItem(KEY));
</script>
</body></html>`;
}

/**
 * GraphiQL: the page on a GET of /graphql that asks for HTML (as yoga serves it), and its assets (GET
 * only; anything else under their path is a 404).
 */
export function useGraphiql(page: GraphiqlPage): Plugin {
  const html = renderGraphiqlPage(page);
  return {
    onRequest({ url, request, endResponse }) {
      if ((url.pathname === '/graphql' || url.pathname === '/graphql/') && request.method === 'GET' && request.headers.get('accept')?.includes('text/html')) {
        return endResponse(new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' } }));
      }
      if (!url.pathname.startsWith(GRAPHIQL_ASSETS_PATH)) return;
      const name = url.pathname.slice(GRAPHIQL_ASSETS_PATH.length);
      if (request.method !== 'GET' || !Object.hasOwn(ASSETS, name)) {
        return endResponse(new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain' } }));
      }
      endResponse(new Response(new Uint8Array(asset(name)) as unknown as BodyInit, { headers: { 'content-type': ASSETS[name]!.type, 'cache-control': 'public, max-age=86400' } }));
    },
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

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
  /** Headers the editor opens with (JSON text). */
  headers?: string;
}

/** The page: yoga's own markup, with every asset address on this server. */
export function renderGraphiqlPage(page: GraphiqlPage): string {
  const at = (name: string) => GRAPHIQL_ASSETS_PATH + name;
  const options = JSON.stringify({ title: page.title, query: page.query, headers: page.headers }).replace(/</g, '\\u003c');
  return `<!doctype html><html lang=en><head><meta charset=utf-8><title>${escapeHtml(page.title)}</title>
<link rel=icon href="data:,"><link rel=stylesheet href="${at('graphiql.css')}"></head>
<body id=body class=no-focus-outline><noscript>GraphiQL needs JavaScript.</noscript><div id=root>Loading ${escapeHtml(page.title)}...</div>
<script>
const workerUrls = { editorWorkerService: ${JSON.stringify(at('editor.worker.js'))}, json: ${JSON.stringify(at('json.worker.js'))}, graphql: ${JSON.stringify(at('graphql.worker.js'))} };
self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (moduleId, label) => workerUrls[label] ?? workerUrls.editorWorkerService };
</script>
<script src="${at('yoga-graphiql.umd.js')}"></script>
<script>YogaGraphiQL.renderYogaGraphiQL(root, ${options});</script>
</body></html>`;
}

/** Answers GET requests for the page's assets; anything else under the path is a 404. */
export function useGraphiqlAssets(): Plugin {
  return {
    onRequest({ url, request, endResponse }) {
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

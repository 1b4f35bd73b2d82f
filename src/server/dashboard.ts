// The capacity dashboard at /dashboard: one page that reads everything through the GraphQL API
// (open access, or a bearer token asked for when the server answers 401 and kept in the tab's session
// storage), refreshed live from the usageChanged and providerChanged subscriptions, with the last
// hour drawn from capacityHistory. Its charts are drawn by Chart.js, served from the project's own dependencies like
// GraphiQL's assets: nothing is fetched from elsewhere, and no build step is needed.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'graphql-yoga';

export const DASHBOARD_PATH = '/dashboard';

// chart.js exports no package.json: its CommonJS entry sits in dist/, next to the UMD build.
const chartDir = dirname(createRequire(import.meta.url).resolve('chart.js'));
const here = dirname(fileURLToPath(import.meta.url));

const FILES: Record<string, { path: () => string; type: string }> = {
  'chart.umd.min.js': { path: () => join(chartDir, 'chart.umd.min.js'), type: 'text/javascript; charset=utf-8' },
  'dashboard.js': { path: () => join(here, 'dashboard.page.js'), type: 'text/javascript; charset=utf-8' },
  'dashboard.css': { path: () => join(here, 'dashboard.page.css'), type: 'text/css; charset=utf-8' },
};
const loaded = new Map<string, Buffer>();
const file = (name: string) => {
  let bytes = loaded.get(name);
  if (!bytes) loaded.set(name, (bytes = readFileSync(FILES[name]!.path())));
  return bytes;
};

const PAGE = `<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content="width=device-width, initial-scale=1">
<title>placement-gql capacity</title><link rel=icon href="data:,"><link rel=stylesheet href="${DASHBOARD_PATH}/dashboard.css"></head>
<body>
<header><h1>Capacity</h1>
<span id=access></span><button id=forget type=button hidden>Forget token</button>
<span id=status role=status>Loading...</span></header>
<section id=login hidden aria-labelledby=login-title>
<h2 id=login-title>This server needs a bearer token</h2>
<p>Enter a reader or admin token (from <code>--tokens</code> or <code>PLACEMENT_TOKENS</code> of <code>serve</code>). It is kept in this browser tab only (session storage, gone when the tab closes), sent in the Authorization header, and never put in the address or in local storage.</p>
<form id=login-form autocomplete=off><label>Bearer token <input id=token type=password required autocomplete=off spellcheck=false></label> <button>Use token</button></form>
<p id=login-error role=alert></p>
</section>
<main id=panels hidden>
<section id=classes-section><h2>Cloud, per resource class</h2><div class=chart><canvas id=classes-chart role=img aria-label="Used and free capacity per resource class"></canvas></div><table id=classes><thead><tr><th>Class<th>Capacity<th>Used<th>Free<th>Reserved<th>Providers</thead><tbody></tbody></table></section>
<section id=flavors-section><h2>Headroom per flavor</h2><p class=note>More servers of each flavor that fit together now (an image without properties). Exact "bound": more than fits may fit, up to at most.</p><div class=chart><canvas id=flavors-chart role=img aria-label="Headroom per flavor"></canvas></div><table id=flavors><thead><tr><th>Flavor<th>Fits<th>At most<th>Exact</thead><tbody></tbody></table></section>
<section id=history-classes-section><h2>Last hour: used / capacity per class</h2><p class=note id=history-note>Sampled by the server every 30 s since it started (kept in its memory; a restart starts afresh).</p><div class="chart tall"><canvas id=history-classes-chart role=img aria-label="Share of capacity used per resource class over the last hour"></canvas></div></section>
<section id=history-flavors-section><h2>Last hour: headroom per flavor</h2><p class=note>More servers of each flavor that fit, at each sample.</p><div class="chart tall"><canvas id=history-flavors-chart role=img aria-label="Headroom per flavor over the last hour"></canvas></div></section>
<section id=aggregates-section><h2>Per aggregate</h2><p class=note>Placement's aggregates have no names: each is shown by the providers in it (sharing providers first) and the start of its uuid. Choose one to see its fullest trees and each flavor's headroom there.</p><table id=aggregates><thead><tr><th>Aggregate<th>Providers<th>Use per class</thead><tbody></tbody></table><div id=drill hidden><h3 id=drill-title></h3><div class=two><div><h4>Fullest trees</h4><table id=drill-trees><tbody></tbody></table></div><div><h4>Flavor headroom</h4><table id=drill-flavors><thead><tr><th>Flavor<th>Fits<th>At most</thead><tbody></tbody></table></div></div></div></section>
<section id=fullest-section><h2>Trees closest to full</h2><table id=fullest><thead><tr><th>Tree<th>Fullness<th>Use per class</thead><tbody></tbody></table></section>
<section id=stranded-section><h2>Stranded capacity</h2><p class=note>Free capacity no further server of the flavor can use once its headroom is placed, and why.</p><label>Flavor <select id=stranded-flavor></select></label><table id=stranded><thead><tr><th>Class<th>Free now<th>Left after<th>Why</thead><tbody></tbody></table></section>
<section id=why-section><h2>Why not here?</h2><form id=why><label>Flavor <select id=why-flavor></select></label> <label>Provider <input id=why-provider list=why-providers placeholder="name or uuid" required></label><datalist id=why-providers></datalist> <button>Explain</button></form><div id=why-answer aria-live=polite></div></section>
</main>
<script src="${DASHBOARD_PATH}/chart.umd.min.js"></script>
<script src="${DASHBOARD_PATH}/dashboard.js"></script>
</body></html>`;

/** Serves the page and its assets (GET only; anything else under the path is a 404). */
export function useDashboard(): Plugin {
  return {
    onRequest({ url, request, endResponse }) {
      const { pathname } = url;
      if (pathname !== DASHBOARD_PATH && !pathname.startsWith(DASHBOARD_PATH + '/')) return;
      const name = pathname.slice(DASHBOARD_PATH.length + 1);
      if (request.method !== 'GET' || (pathname !== DASHBOARD_PATH && !Object.hasOwn(FILES, name))) {
        return endResponse(new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain' } }));
      }
      if (pathname === DASHBOARD_PATH) return endResponse(new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' } }));
      endResponse(new Response(new Uint8Array(file(name)) as unknown as BodyInit, { headers: { 'content-type': FILES[name]!.type, 'cache-control': 'public, max-age=3600' } }));
    },
  };
}

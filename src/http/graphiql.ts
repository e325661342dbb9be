import { Hono } from 'hono';
import type { GraphiQLOptions } from 'graphql-yoga';

/** Where the page loads its script, stylesheet, icon and editor workers from; nothing comes from a CDN. */
export const GRAPHIQL_ASSETS_PATH = '/graphql/assets';

type Bundle = typeof import('@graphql-yoga/render-graphiql/graphiql');

// The bundle is about 9 MB of strings; it is loaded on the first asset request so start-up does not pay for it.
let bundle: Promise<Bundle> | undefined;
const loadBundle = () => (bundle ??= import('@graphql-yoga/render-graphiql/graphiql'));

const javascript = 'text/javascript; charset=utf-8';
// Worker files are named after the labels Monaco asks getWorkerUrl for.
const assets = new Map<string, { type: string; body: (b: Bundle) => string | Uint8Array<ArrayBuffer> }>([
  ['graphiql.js', { type: javascript, body: (b) => b.js }],
  ['graphiql.css', { type: 'text/css; charset=utf-8', body: (b) => b.css }],
  ['editorWorkerService.worker.js', { type: javascript, body: (b) => b.editorWorkerService }],
  ['json.worker.js', { type: javascript, body: (b) => b.jsonWorker }],
  ['graphql.worker.js', { type: javascript, body: (b) => b.graphqlWorker }],
  // The bundle holds the icon as a base64 data: URL.
  [
    'favicon.ico',
    { type: 'image/x-icon', body: (b) => new Uint8Array(Buffer.from(b.favicon.split(',')[1] ?? '', 'base64')) },
  ],
]);

/** What the query editor opens with when the browser has no query of its own: a nested read of the demo boards. */
export const EXAMPLE_QUERY = `# Boards with their data streams, slides and objects:
# one request, answered by one SQL statement.
# Run it with the play button; tick fields in the Explorer.
query NestedBoards {
  whiteboards(first: 5) {
    totalCount
    edges {
      node {
        name
        author { email }
        dataStreams(first: 5) {
          edges {
            node {
              name
              slides(first: 5) {
                edges { node { order name } }
              }
            }
          }
        }
        objects(first: 5) {
          totalCount
          edges { node { name classConf { name } } }
        }
      }
    }
  }
}
`;

type Options = GraphiQLOptions & {
  /** The plugin pane open at first, by title; Yoga passes it on to GraphiQL but its type does not list it. */
  visiblePlugin?: string;
};

/**
 * How GraphiQL opens: the example query, the Explorer shown, and the demo owner's key in the headers
 * when the server knows it, else a placeholder to replace.
 */
export function graphiqlOptions(demoKey: string | undefined): Options {
  return {
    title: 'Whiteboard GraphiQL',
    defaultQuery: EXAMPLE_QUERY,
    headers: JSON.stringify({ 'X-API-KEY': demoKey ?? '<your API key>' }, null, 2),
    // A key is a secret: kept out of the browser's storage, the page brings the current one each time.
    shouldPersistHeaders: false,
    // The query builder that the installed GraphiQL bundles (@graphiql/plugin-explorer); no CDN needed.
    visiblePlugin: 'GraphiQL Explorer',
  };
}

/** Serves the files of `@graphql-yoga/render-graphiql` under GRAPHIQL_ASSETS_PATH. */
export function graphiqlAssets(): Hono {
  return new Hono().get('/:name', async (c) => {
    const asset = assets.get(c.req.param('name'));
    if (!asset) return c.notFound();
    return c.body(asset.body(await loadBundle()), 200, {
      'Content-Type': asset.type,
      'Cache-Control': 'public, max-age=3600',
    });
  });
}

/** Yoga's `renderGraphiQL`: its own renderer points at unpkg.com, this one at GRAPHIQL_ASSETS_PATH. */
export function renderGraphiQL(options: GraphiQLOptions): string {
  // Escaping `<` keeps option strings from closing the script element.
  const json = JSON.stringify(options).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Whiteboard GraphiQL</title>
<link rel="icon" href="${GRAPHIQL_ASSETS_PATH}/favicon.ico">
<link rel="stylesheet" href="${GRAPHIQL_ASSETS_PATH}/graphiql.css">
</head>
<body id="body" class="no-focus-outline">
<noscript>You need to enable JavaScript to run GraphiQL.</noscript>
<div id="root"></div>
<script>
self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: (_moduleId, label) => '${GRAPHIQL_ASSETS_PATH}/' + label + '.worker.js',
};
</script>
<script src="${GRAPHIQL_ASSETS_PATH}/graphiql.js"></script>
<script>YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), ${json});</script>
</body>
</html>
`;
}

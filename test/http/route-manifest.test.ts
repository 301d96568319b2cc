import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MANIFEST_FILE, routeManifestSource } from '../../scripts/route-manifest';
import { allRoutes, lazyRoutes } from '#http/routes/index';

/**
 * The daemon mounts every route from src/http/routes/manifest.ts and loads a
 * route group's module on the group's first request (ROUTE_GROUPS): the
 * committed manifest must be what the groups declare, route for route, in order.
 */
test('the committed route manifest is what the route groups declare (npm run routes:manifest)', () => {
  const committed = fs.readFileSync(MANIFEST_FILE, 'utf8');
  const current = routeManifestSource();
  if (committed !== current) {
    const committedLines = committed.split('\n');
    const line = current.split('\n').findIndex((text, i) => text !== committedLines[i]);
    assert.unreachable(
      `src/http/routes/manifest.ts is out of date (first difference at line ${line + 1}): run npm run routes:manifest and commit the file`,
    );
  }
});

test('each lazy route loads the very declaration mounted before, in the same order', () => {
  const lazy = lazyRoutes();
  const loaded = lazy.map((route) => route.load());
  assert.equal(
    lazy.map((r) => `${r.method} ${r.path}`),
    allRoutes().map((r) => `${r.method} ${r.path}`),
  );
  assert.equal(loaded, allRoutes());
});

test.run();

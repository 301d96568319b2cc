import type { Deps } from '#deps';
import { mapsMaxResponseBytes } from '#config';
import { fieldError, integrationNotConfigured, upstreamError } from '#errors';
import { callUpstream, upstreamUrl } from './upstream';

/**
 * A path an app may ask the maps upstream for: plain segments only. No
 * percent-encoding (encoded dots or slashes), no `@`, `:`, `\`, no `.`/`..`
 * segments and no empty segments, so the path cannot name another host,
 * another scheme or a place above the configured base.
 */
const SAFE_PATH = /^(\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+\/?$/;

/** Content types passed through; anything else is served as bytes (never as a page of this origin). */
const PASSED_TYPES = /^(image\/(png|jpeg|webp|gif)|application\/(json|geo\+json|x-protobuf|vnd\.mapbox-vector-tile)|text\/plain)(;|$)/i;

export interface MapsAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

/**
 * Proxies one GET to the configured maps upstream: the path must start with
 * one of mapsAllowedPaths, every query parameter must be in
 * mapsAllowedParams, and the API key is added here (apps never see it).
 * @throws AppError INTEGRATION_NOT_CONFIGURED, VALIDATION_ERROR (path or parameter refused),
 *   UPSTREAM_ERROR (no answer in time or size, a redirect, or a status ≥ 400)
 */
export async function proxyMaps(deps: Deps, path: string, params: Record<string, string>): Promise<MapsAnswer> {
  const { mapsUrl, mapsAllowedPaths, mapsAllowedParams, mapsApiKey, mapsApiKeyParam } = deps.config;
  if (!mapsUrl || mapsAllowedPaths.length === 0)
    throw integrationNotConfigured('maps', ['mapsUrl', 'mapsAllowedPaths', 'mapsAllowedParams', 'mapsApiKey']);
  if (!SAFE_PATH.test(path) || path.split('/').some((segment) => segment === '.' || segment === '..')) {
    throw fieldError('query.path', 'use a plain path such as /geocode/search (letters, digits, - _ . ~ between slashes)');
  }
  if (!mapsAllowedPaths.some((prefix) => path.startsWith(prefix)))
    throw fieldError('query.path', `the maps proxy serves ${mapsAllowedPaths.join(', ')} only`);
  const refused = Object.keys(params).filter((name) => !mapsAllowedParams.includes(name) || name === mapsApiKeyParam);
  if (refused.length > 0)
    throw fieldError('query', `parameters not allowed: ${refused.join(', ')} (allowed: ${mapsAllowedParams.join(', ') || 'none'})`);
  const url = upstreamUrl(mapsUrl, path);
  url.search = '';
  for (const [name, value] of Object.entries(params)) url.searchParams.append(name, value);
  if (mapsApiKey) url.searchParams.set(mapsApiKeyParam, mapsApiKey);
  const response = await callUpstream(deps, 'maps', {
    url,
    method: 'GET',
    headers: { accept: '*/*', 'user-agent': 'wip-maps-proxy/1' },
    maxResponseBytes: mapsMaxResponseBytes(deps.config),
  });
  if (response.status >= 400) throw upstreamError('maps', response.status, `it answered HTTP ${response.status}`);
  const type = String(response.headers['content-type'] ?? '');
  return {
    status: response.status,
    contentType: PASSED_TYPES.test(type) ? type : 'application/octet-stream',
    body: response.body,
  };
}

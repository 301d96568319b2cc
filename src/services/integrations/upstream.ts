import type { Deps } from '#deps';
import { upstreamError } from '#errors';
import { OutboundError, outboundRequest, type OutboundRequest, type OutboundResponse } from '#lib/outbound-http';

/**
 * Integration upstreams are named by the operator's configuration, never by a
 * caller: a request goes to the configured origin only (see upstreamUrl), is
 * never redirected (a 3xx is a failure), and is bounded in time
 * (integrationTimeout) and size. The webhook network policy
 * (lib/network-policy.ts) is not applied here: it guards URLs that tenants
 * choose, while an ERP or tile server on the appliance's own network or host
 * is a normal, operator-made setup.
 */

/** The configured base URL with `path` appended under its path; the origin can never change. */
export function upstreamUrl(base: string, path: string): URL {
  const url = new URL(base);
  const origin = url.origin;
  url.pathname = url.pathname.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
  if (url.origin !== origin) throw new Error('the upstream URL left its origin');
  return url;
}

/**
 * One call to an integration upstream.
 * @throws AppError UPSTREAM_ERROR when there is no complete answer in time and size, or it is a redirect
 */
export async function callUpstream(
  deps: Deps,
  integration: string,
  request: Omit<OutboundRequest, 'timeoutMs'>,
): Promise<OutboundResponse> {
  let response: OutboundResponse;
  try {
    response = await outboundRequest({ ...request, timeoutMs: deps.config.integrationTimeout });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    deps.logger.warn({ integration, host: request.url.host, reason: error.reason }, 'integration upstream failed');
    throw upstreamError(integration, null, error.message);
  }
  if (response.status >= 300 && response.status < 400) {
    throw upstreamError(integration, response.status, 'it answered with a redirect, which is not followed');
  }
  return response;
}

/** A 2xx answer's JSON. @throws AppError UPSTREAM_ERROR for another status or a body that is not JSON */
export function upstreamJson(integration: string, response: OutboundResponse): unknown {
  if (response.status < 200 || response.status >= 300)
    throw upstreamError(integration, response.status, `it answered HTTP ${response.status}`);
  try {
    return JSON.parse(response.body.toString('utf8'));
  } catch {
    throw upstreamError(integration, response.status, 'its answer is not JSON');
  }
}

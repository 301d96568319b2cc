import helmet from 'koa-helmet';

/**
 * Security headers on every response (helmet). The API serves JSON and files,
 * never pages, so the content policy forbids everything. HSTS only over TLS:
 * sent on plain HTTP it would be ignored, and it must not pin a LAN host to
 * HTTPS that does not serve it.
 *
 * helmet's answer does not depend on the request, so it runs once, against a
 * recording response, and every request gets the recorded list (the request
 * frame sets it with `Cache-Control: no-store`).
 */
export function securityHeaderList(): [string, string][] {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string | number | string[]) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
    getHeader: (name: string) => headers.get(name),
  };
  const middleware = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    strictTransportSecurity: false,
  });
  // helmet sets its headers synchronously; the promise only wraps the callback
  void middleware({ req: { headers: {} }, res: recorder } as never, async () => {});
  if (headers.size === 0) throw new Error('helmet set no headers');
  return [...headers];
}

export const HSTS: [string, string] = ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'];

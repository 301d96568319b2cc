/** SHA-256 as lower-case hex through WebCrypto: the same code in Node and in the browser (the verifier page). */
export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  // TypeScript 7 (the build) needs the assertion, TypeScript 6 (the lint's) finds it unnecessary: docs/development.md
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

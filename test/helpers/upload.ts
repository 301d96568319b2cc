import type { TestResponse, TestServer } from './server';
import { checkExchange } from './openapi-exchange';
import { solidPng } from './images';

export interface UploadPart {
  name: string;
  data: Buffer | string;
  /** the part's field name; "file" unless given */
  field?: string;
  /** what the client claims (the server ignores it and reads the bytes) */
  type?: string;
}

/** A multipart/form-data upload through fetch's own FormData encoder. */
export async function upload(
  server: TestServer,
  token: string,
  parts: UploadPart[],
  options: { metadata?: string; fields?: Record<string, string>; path?: string } = {},
): Promise<TestResponse> {
  const form = new FormData();
  for (const [key, value] of Object.entries(options.fields ?? {})) form.append(key, value);
  for (const part of parts)
    form.append(part.field ?? 'file', new Blob([part.data], { type: part.type ?? 'application/octet-stream' }), part.name);
  if (options.metadata !== undefined) form.append('metadata', options.metadata);
  const response = await fetch(server.url + (options.path ?? '/api/client/upload'), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const answer: TestResponse = { status: response.status, headers: response.headers, body: body as any, text };
  // multipart bodies are not checked against the document's request schema (the parts are described, not parsed here)
  await checkExchange(server.url, {
    method: 'POST',
    url: new URL(server.url + (options.path ?? '/api/client/upload')),
    requestHeaders: { authorization: `Bearer ${token}`, 'content-type': 'multipart/form-data' },
    requestBody: undefined,
    response: answer,
  });
  return answer;
}

/** A real PNG: uploads of images are decoded, and a signature followed by anything else is refused. */
export const PNG = solidPng(3, 2, [200, 50, 50]);
export const GLB = Buffer.concat([Buffer.from('glTF'), Buffer.alloc(4000, 7)]);

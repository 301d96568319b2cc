/**
 * The HTTP headers the API sends and reads, described once: routes name them
 * (`sends`, `honours` in their declaration) and the OpenAPI document takes the
 * description and schema from here (components.headers / components.parameters).
 */

type JsonSchema = Record<string, unknown>;

export interface HeaderDoc {
  description: string;
  schema: JsonSchema;
  /** sent with every answer that lists it (the document marks it required) */
  always?: boolean;
}

const integer = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };
const text = { type: 'string' };

export const RESPONSE_HEADERS = {
  'X-Request-Id': { description: 'The id of this request (the one sent, when sane), also in the logs', schema: text, always: true },
  'X-RateLimit-Limit': { description: 'Requests allowed in the current window', schema: integer },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window after this one', schema: integer },
  'X-RateLimit-Reset': { description: 'When the window resets (whole Unix seconds)', schema: integer },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: integer },
  Allow: { description: 'The methods the path answers', schema: text },
  ETag: { description: 'The version of the representation; send it back in If-None-Match', schema: text },
  'Content-Disposition': { description: 'attachment, with the file name', schema: text },
  'Content-Range': { description: 'The bytes sent (206) or the full length (416: `bytes */LENGTH`)', schema: text, always: true },
  'Accept-Ranges': { description: '`bytes`: the answer can be fetched in byte ranges', schema: text },
  'X-Total-Count': { description: 'The number of rows the export will send (for a progress bar)', schema: integer },
  'Idempotency-Replayed': {
    description: '`true` when the answer is the stored first answer to this Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
  'X-CSRF-Token': { description: 'The CSRF token to send back in X-CSRF-Token with cookie-authenticated writes', schema: text },
  'X-License-Warning': { description: 'The license is near its end or over an allowance', schema: text },
  Location: { description: 'Where the redirect leads', schema: text, always: true },
  'Cache-Control': { description: 'How the answer may be cached', schema: text },
} satisfies Record<string, HeaderDoc>;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

export const REQUEST_HEADERS = {
  'X-Request-Id': {
    description: 'A request id of yours (1-128 of A-Z a-z 0-9 . _ : -) echoed back and logged',
    schema: { type: 'string', maxLength: 128 },
  },
  'Accept-Language': { description: 'The language of error messages and translated texts', schema: text },
  'Idempotency-Key': {
    description: 'Makes a write safe to retry: the first answer is replayed for 24 h to the same key and body (Idempotency-Replayed: true)',
    schema: { type: 'string', maxLength: 255 },
  },
  'X-Client-ID': {
    description: 'Selects the client when the email exists in several (the way out of 409 CLIENT_SELECTION_REQUIRED)',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  'X-Target-Authorization': {
    description:
      'copy-entities: `Bearer <access token>` of the target client, signed in as one of its Security Administrators (proof that the caller administers the target)',
    schema: { type: 'string', pattern: '^Bearer ' },
  },
  'If-None-Match': { description: 'The ETag of a copy you hold: 304 Not Modified while it is current', schema: text },
  Range: { description: 'One byte range (`bytes=START-END`): 206 Partial Content, or 416 when it cannot be satisfied', schema: text },
  'If-Range': { description: 'The ETag the Range applies to; the whole file when it changed', schema: text },
  'Last-Event-ID': { description: 'Resume an event stream after this event id', schema: text },
  'webhook-id': { description: 'Standard Webhooks message id', schema: text },
  'webhook-timestamp': { description: 'Standard Webhooks timestamp (Unix seconds)', schema: text },
  'webhook-signature': { description: 'Standard Webhooks signature over id, timestamp and body', schema: text },
} satisfies Record<string, HeaderDoc>;

export type RequestHeaderName = keyof typeof REQUEST_HEADERS;

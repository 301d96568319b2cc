/**
 * The content type of stored bytes, from their first bytes (magic numbers) —
 * never from the client's Content-Type header or file name alone. Text formats
 * without a signature (glTF JSON, OBJ, ASCII FBX) are recognised when the
 * bytes are text of the right shape AND the name has the format's extension.
 * Anything else is application/octet-stream (accepted, served as a download).
 *
 * A signature table rather than the `file-type` package: its current releases
 * are ESM-only (this build is CommonJS) and it knows none of the text-based 3D
 * formats the shop floor uses.
 */

/** How many leading bytes detection needs. */
export const SNIFF_BYTES = 4096;

interface Signature {
  type: string;
  offset?: number;
  bytes: string | number[];
}

const SIGNATURES: Signature[] = [
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/gif', bytes: 'GIF87a' },
  { type: 'image/gif', bytes: 'GIF89a' },
  { type: 'application/pdf', bytes: '%PDF-' },
  { type: 'model/gltf-binary', bytes: 'glTF' },
  { type: 'application/vnd.autodesk.fbx', bytes: 'Kaydara FBX Binary  \0' },
  { type: 'application/x-ply', bytes: 'ply\n' },
  { type: 'application/x-ply', bytes: 'ply\r\n' },
  { type: 'application/gzip', bytes: [0x1f, 0x8b] },
  { type: 'audio/mpeg', bytes: 'ID3' },
  { type: 'audio/ogg', bytes: 'OggS' },
  { type: 'video/webm', bytes: [0x1a, 0x45, 0xdf, 0xa3] },
];

function matches(head: Buffer, signature: Signature): boolean {
  const expected = typeof signature.bytes === 'string' ? Buffer.from(signature.bytes, 'latin1') : Buffer.from(signature.bytes);
  const offset = signature.offset ?? 0;
  return head.length >= offset + expected.length && head.subarray(offset, offset + expected.length).equals(expected);
}

const ascii = (head: Buffer, start: number, end: number) => head.subarray(start, end).toString('latin1');

/** The content type of a file that starts with `head`, named `name`. */
export function detectContentType(head: Buffer, name: string): string {
  for (const signature of SIGNATURES) if (matches(head, signature)) return signature.type;
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'image/webp';
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WAVE') return 'audio/wav';
  if (ascii(head, 4, 8) === 'ftyp') {
    const brand = ascii(head, 8, 12);
    if (brand === 'qt  ') return 'video/quicktime';
    if (brand.startsWith('M4A')) return 'audio/mp4';
    return 'video/mp4';
  }
  if (ascii(head, 0, 4) === 'PK\x03\x04') {
    // USDZ: a ZIP whose first entry is the USD layer (usdz spec)
    const nameLength = head.readUInt16LE(26);
    const firstEntry = ascii(head, 30, 30 + nameLength);
    return /\.usd[ac]?$/i.test(firstEntry) ? 'model/vnd.usdz+zip' : 'application/zip';
  }
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (!isText(head)) return 'application/octet-stream';
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (extension === 'gltf' && text.startsWith('{')) return 'model/gltf+json';
  if (extension === 'obj' && looksLikeObj(text)) return 'model/obj';
  if (extension === 'fbx' && text.startsWith(';')) return 'application/vnd.autodesk.fbx';
  if (extension === 'json' && (text.startsWith('{') || text.startsWith('['))) return 'application/json';
  if (extension === 'csv') return 'text/csv';
  // SVG and HTML could carry scripts: stored as plain text, never served as markup
  return 'text/plain';
}

/** No NUL or other control bytes (besides tab, CR, LF, FF, ESC) in the head: text. */
function isText(head: Buffer): boolean {
  if (head.length === 0) return false;
  for (const byte of head)
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c && byte !== 0x1b) return false;
  return true;
}

function looksLikeObj(text: string): boolean {
  return text.split(/\r?\n/).some((line) => /^(v|vt|vn|f|o|g|mtllib|usemtl)\s/.test(line));
}

/** The 3D model formats of GET /api/client/download-model/:type/:id and the content types each stands for. */
export const MODEL_TYPES = {
  glb: ['model/gltf-binary'],
  gltf: ['model/gltf+json'],
  obj: ['model/obj'],
  fbx: ['application/vnd.autodesk.fbx'],
  usdz: ['model/vnd.usdz+zip'],
  ply: ['application/x-ply'],
} as const satisfies Record<string, readonly string[]>;

export type ModelType = keyof typeof MODEL_TYPES;

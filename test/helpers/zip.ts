import { crc32, deflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';

/**
 * ZIP files byte by byte, for archives no well-behaved writer makes (yazl
 * refuses `..` and absolute names): each entry may lie about its size, carry
 * a Unix mode (symlinks) or be deflated.
 */
export interface RawEntry {
  name: string;
  data?: Buffer;
  deflate?: boolean;
  /** declared uncompressed size (default the true one) */
  declaredSize?: number;
  /** Unix mode in the external attributes (made by Unix) */
  unixMode?: number;
}

export function rawZip(entries: readonly RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = entry.data ?? Buffer.alloc(0);
    const stored = entry.deflate ? deflateRawSync(data) : data;
    const name = Buffer.from(entry.name, 'utf8');
    const crc = crc32(data);
    const size = entry.declaredSize ?? data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(entry.deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, stored);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(entry.unixMode !== undefined ? (3 << 8) | 20 : 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(entry.deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(stored.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(entry.unixMode !== undefined ? (entry.unixMode << 16) >>> 0 : 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + stored.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** Every entry of a ZIP in memory: name → bytes. */
export async function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (e, z) => (e ? reject(e) : resolve(z))),
  );
  const out = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', () => resolve());
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('error', reject);
        stream.on('end', () => {
          out.set(entry.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
  return out;
}

/** A download as bytes (fetch, so the body is not parsed as JSON). */
export async function download(
  url: string,
  token: string,
): Promise<{ status: number; type: string | null; disposition: string | null; bytes: Buffer; text: string }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const bytes = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    disposition: res.headers.get('content-disposition'),
    bytes,
    text: bytes.toString('utf8'),
  };
}

/** POSTs a ZIP as the multipart part `file`. */
export async function uploadZip(url: string, token: string, zip: Buffer, field = 'file'): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append(field, new Blob([zip], { type: 'application/zip' }), 'template.zip');
  const res = await fetch(url, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body };
}

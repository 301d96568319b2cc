/**
 * A PLY point cloud's shape, read from a stream without holding it: the header
 * (format, elements, properties) is parsed and checked, then the vertex data is
 * walked once to prove the declared count is really there and to compute the
 * bounds. ASCII, binary little endian and binary big endian (PLY 1.0).
 *
 * Hand-written: the npm PLY readers build whole meshes in memory (three.js
 * loaders and the like); this needs only a bounded, streaming pass.
 */

export type PlyFormat = 'ascii' | 'binary_little_endian' | 'binary_big_endian';

export interface PlySummary {
  format: PlyFormat;
  pointCount: number;
  bounds: { min: [number, number, number]; max: [number, number, number] };
}

/** A malformed or unsupported file; the message says what and where. */
export class PlyError extends Error {}

const MAX_HEADER_BYTES = 64 * 1024;
const SIZES: Record<string, number> = {
  char: 1,
  int8: 1,
  uchar: 1,
  uint8: 1,
  short: 2,
  int16: 2,
  ushort: 2,
  uint16: 2,
  int: 4,
  int32: 4,
  uint: 4,
  uint32: 4,
  float: 4,
  float32: 4,
  double: 8,
  float64: 8,
};

interface Property {
  name: string;
  type: string;
  /** list properties: the type of the count */
  countType?: string;
}

interface Element {
  name: string;
  count: number;
  properties: Property[];
}

function parseHeader(text: string): { format: PlyFormat; elements: Element[] } {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  if (lines[0] !== 'ply') throw new PlyError('not a PLY file: the first line must be "ply"');
  let format: PlyFormat | undefined;
  const elements: Element[] = [];
  for (const [index, line] of lines.slice(1).entries()) {
    const words = line.split(/\s+/);
    const where = `header line ${index + 2}`;
    switch (words[0]) {
      case 'format':
        if (!['ascii', 'binary_little_endian', 'binary_big_endian'].includes(words[1] ?? '') || words[2] !== '1.0')
          throw new PlyError(`${where}: unsupported format "${line}"`);
        format = words[1] as PlyFormat;
        break;
      case 'element': {
        const count = Number(words[2]);
        if (!words[1] || !Number.isSafeInteger(count) || count < 0) throw new PlyError(`${where}: an element needs a name and a count`);
        elements.push({ name: words[1], count, properties: [] });
        break;
      }
      case 'property': {
        const element = elements.at(-1);
        if (!element) throw new PlyError(`${where}: a property before any element`);
        if (words[1] === 'list') {
          if (!SIZES[words[2] ?? ''] || !SIZES[words[3] ?? ''] || !words[4]) throw new PlyError(`${where}: malformed list property`);
          element.properties.push({ name: words[4], type: words[3], countType: words[2] });
        } else {
          if (!SIZES[words[1] ?? ''] || !words[2]) throw new PlyError(`${where}: unknown property type "${words[1] ?? ''}"`);
          element.properties.push({ name: words[2], type: words[1] });
        }
        break;
      }
      case 'comment':
      case 'obj_info':
      case '':
      case 'end_header':
        break;
      default:
        throw new PlyError(`${where}: unexpected "${words[0]}"`);
    }
  }
  if (!format) throw new PlyError('the header has no format line');
  const vertex = elements.find((e) => e.name === 'vertex');
  if (!vertex) throw new PlyError('the header declares no vertex element');
  for (const axis of ['x', 'y', 'z']) {
    const property = vertex.properties.find((p) => p.name === axis);
    if (!property || property.countType) throw new PlyError(`the vertex element has no scalar "${axis}" property`);
  }
  return { format, elements };
}

/** Reads a PLY stream and summarises it. @throws PlyError */
export async function summarizePly(chunks: AsyncIterable<Buffer>): Promise<PlySummary> {
  const iterator = chunks[Symbol.asyncIterator]();
  let buffer: Buffer = Buffer.alloc(0);
  let ended = false;
  const more = async (): Promise<boolean> => {
    if (ended) return false;
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      return false;
    }
    buffer = buffer.length ? Buffer.concat([buffer, next.value]) : next.value;
    return true;
  };

  let headerEnd = -1;
  while ((headerEnd = buffer.indexOf('end_header')) === -1 || buffer.indexOf('\n', headerEnd) === -1) {
    if (buffer.length > MAX_HEADER_BYTES) throw new PlyError(`no end_header in the first ${MAX_HEADER_BYTES} bytes`);
    if (!(await more())) throw new PlyError('the file ends inside the header');
  }
  const dataStart = buffer.indexOf('\n', headerEnd) + 1;
  const { format, elements } = parseHeader(buffer.subarray(0, dataStart).toString('latin1'));
  buffer = buffer.subarray(dataStart);

  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  const vertexIndex = elements.findIndex((e) => e.name === 'vertex');
  const vertex = elements[vertexIndex];
  const axes = ['x', 'y', 'z'].map((a) => vertex.properties.findIndex((p) => p.name === a));
  const take = (values: number[], row: number) => {
    for (let i = 0; i < 3; i++) {
      const v = values[axes[i]];
      if (!Number.isFinite(v)) throw new PlyError(`vertex ${row}: coordinate is not a finite number`);
      if (v < min[i]) min[i] = v;
      if (v > max[i]) max[i] = v;
    }
  };

  if (format === 'ascii') {
    // one line per element instance; the elements before the vertex are skipped
    const nextLine = async (): Promise<string | null> => {
      let newline: number;
      while ((newline = buffer.indexOf('\n')) === -1) {
        if (buffer.length > MAX_HEADER_BYTES) throw new PlyError('a data line is too long');
        if (!(await more())) {
          if (buffer.length === 0) return null;
          const last = buffer.toString('latin1');
          buffer = Buffer.alloc(0);
          return last;
        }
      }
      const text = buffer.subarray(0, newline).toString('latin1');
      buffer = buffer.subarray(newline + 1);
      return text;
    };
    for (const element of elements.slice(0, vertexIndex + 1)) {
      for (let row = 0; row < element.count; row++) {
        const text = await nextLine();
        if (text === null) throw new PlyError(`the file ends after ${row} of ${element.count} ${element.name} rows`);
        if (element !== vertex) continue;
        const words = text.trim().split(/\s+/).map(Number);
        if (words.length < vertex.properties.length) throw new PlyError(`vertex ${row}: expected ${vertex.properties.length} values`);
        take(words, row);
      }
    }
  } else {
    const little = format === 'binary_little_endian';
    const fixedSize = (element: Element) => {
      if (element.properties.some((p) => p.countType))
        throw new PlyError(`binary element "${element.name}" has list properties before or in the vertex data (unsupported)`);
      return element.properties.reduce((sum, p) => sum + SIZES[p.type], 0);
    };
    const skip = elements.slice(0, vertexIndex).reduce((sum, e) => sum + e.count * fixedSize(e), 0);
    const stride = fixedSize(vertex);
    const offsets = vertex.properties.map((_, i) => vertex.properties.slice(0, i).reduce((sum, p) => sum + SIZES[p.type], 0));
    let toSkip = skip;
    const read = (row: Buffer, property: Property, offset: number): number => {
      switch (SIZES[property.type] === 8 ? 'double' : property.type) {
        case 'float':
        case 'float32':
          return little ? row.readFloatLE(offset) : row.readFloatBE(offset);
        case 'double':
          return little ? row.readDoubleLE(offset) : row.readDoubleBE(offset);
        case 'char':
        case 'int8':
          return row.readInt8(offset);
        case 'uchar':
        case 'uint8':
          return row.readUInt8(offset);
        case 'short':
        case 'int16':
          return little ? row.readInt16LE(offset) : row.readInt16BE(offset);
        case 'ushort':
        case 'uint16':
          return little ? row.readUInt16LE(offset) : row.readUInt16BE(offset);
        case 'int':
        case 'int32':
          return little ? row.readInt32LE(offset) : row.readInt32BE(offset);
        default:
          return little ? row.readUInt32LE(offset) : row.readUInt32BE(offset);
      }
    };
    let row = 0;
    while (row < vertex.count) {
      if (toSkip > 0) {
        const skipped = Math.min(toSkip, buffer.length);
        buffer = buffer.subarray(skipped);
        toSkip -= skipped;
      }
      while (toSkip === 0 && buffer.length >= stride && row < vertex.count) {
        const values: number[] = [];
        for (const i of axes) values[i] = read(buffer, vertex.properties[i], offsets[i]);
        take(values, row);
        buffer = buffer.subarray(stride);
        row++;
      }
      if (row < vertex.count && !(await more())) throw new PlyError(`the file ends after ${row} of ${vertex.count} vertices`);
    }
  }
  // drain the rest (faces etc.) without looking at it
  while (await more()) buffer = Buffer.alloc(0);
  const empty = vertex.count === 0;
  return { format, pointCount: vertex.count, bounds: empty ? { min: [0, 0, 0], max: [0, 0, 0] } : { min, max } };
}

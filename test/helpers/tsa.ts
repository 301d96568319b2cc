import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createHash, X509Certificate } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A real RFC 3161 time-stamping authority for tests: OpenSSL's
 * `openssl ts -reply` behind a tiny HTTP wrapper on loopback, with a
 * throwaway certificate made here. `mode` makes it misbehave: down (the
 * connection dropped), garbage (HTTP 200 with noise), forger (a second
 * authority's key and certificate answer instead).
 */
export interface TestTsa {
  url: string;
  mode: 'ok' | 'down' | 'garbage' | 'forger';
  /** SHA-256 (hex) of the genuine authority's certificate (DER) */
  certificateSha256: string;
  certificatePem: string;
  /** a token of the genuine (or forger) authority over a message's imprint, made directly with openssl */
  stamp(signature: string, by?: 'genuine' | 'forger'): Promise<string>;
  stop(): Promise<void>;
}

async function authority(dir: string, name: string): Promise<string> {
  const own = path.join(dir, name);
  fs.mkdirSync(own);
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-keyout',
    path.join(own, 'tsa.key'),
    '-out',
    path.join(own, 'tsa.crt'),
    '-subj',
    `/CN=${name === 'genuine' ? 'Test TSA' : 'Test TSA'}/O=wip tests ${name}`,
    '-addext',
    'extendedKeyUsage=critical,timeStamping',
    '-addext',
    'keyUsage=critical,digitalSignature',
  ]);
  fs.writeFileSync(path.join(own, 'serial'), '01\n');
  const config = path.join(own, 'tsa.cnf');
  fs.writeFileSync(
    config,
    `[ tsa ]
default_tsa = tsa_config
[ tsa_config ]
dir = ${own}
serial = $dir/serial
crypto_device = builtin
signer_cert = $dir/tsa.crt
certs = $dir/tsa.crt
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256
accuracy = secs:1
ordering = yes
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`,
  );
  return config;
}

export async function startTestTsa(port = 0): Promise<TestTsa> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-tsa-'));
  const genuine = await authority(dir, 'genuine');
  const forger = await authority(dir, 'forger');
  let requests = 0;
  const reply = async (query: Buffer, config: string): Promise<Buffer> => {
    const n = ++requests;
    const queryFile = path.join(dir, `q-${n}.der`);
    const responseFile = path.join(dir, `r-${n}.der`);
    fs.writeFileSync(queryFile, query);
    await run('openssl', ['ts', '-reply', '-config', config, '-queryfile', queryFile, '-out', responseFile]);
    return fs.readFileSync(responseFile);
  };
  const tsa: TestTsa = {
    url: '',
    mode: 'ok',
    certificatePem: fs.readFileSync(path.join(dir, 'genuine', 'tsa.crt'), 'utf8'),
    certificateSha256: createHash('sha256')
      .update(new X509Certificate(fs.readFileSync(path.join(dir, 'genuine', 'tsa.crt'))).raw)
      .digest('hex'),
    async stamp(signature, by = 'genuine') {
      const n = ++requests;
      const dataFile = path.join(dir, `d-${n}`);
      const queryFile = path.join(dir, `sq-${n}.der`);
      const responseFile = path.join(dir, `sr-${n}.der`);
      fs.writeFileSync(dataFile, signature, 'ascii');
      await run('openssl', ['ts', '-query', '-data', dataFile, '-sha256', '-cert', '-out', queryFile]);
      await run('openssl', [
        'ts',
        '-reply',
        '-config',
        by === 'genuine' ? genuine : forger,
        '-queryfile',
        queryFile,
        '-out',
        responseFile,
        '-token_out',
      ]);
      return fs.readFileSync(responseFile).toString('base64');
    },
    stop: async () => {},
  };
  const server = http.createServer((req, res) => {
    if (tsa.mode === 'down') {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (tsa.mode === 'garbage') {
        res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(Buffer.from('not a TimeStampResp at all'));
        return;
      }
      reply(Buffer.concat(chunks), tsa.mode === 'forger' ? forger : genuine).then(
        (body) => res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(body),
        (error: Error) => res.writeHead(500).end(error.message),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  tsa.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/tsa`;
  tsa.stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return tsa;
}

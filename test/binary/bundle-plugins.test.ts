import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  depdLinesOnFirstUse,
  embeddedLicenseKeys,
  jsonwebtokenFeatureChecksAsTrue,
  licenseKeyPems,
  mimeTypesOnFirstUse,
  PDFKIT_LOADERS,
  pdfkitFromBundle,
} from '../../scripts/bundle-plugins';
import { embeddedKeys } from '#licensing/embedded-keys';

/**
 * The esbuild plugins of the single-executable build, on small bundles run by
 * node from an empty directory: what the bundle needs must be inside it.
 */
const root = path.resolve(__dirname, '..', '..', '..');
const test = suite('scripts/bundle-plugins (esbuild)');
let dir = '';

test.before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-bundle-'));
});
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function bundleAndRun(name: string, contents: string, options: Parameters<typeof build>[0] = {}): Promise<Buffer> {
  const outfile = path.join(dir, `${name}.cjs`);
  await build({
    stdin: { contents, resolveDir: root, sourcefile: `${name}.js`, loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    absWorkingDir: root,
    logLevel: 'silent',
    outfile,
    ...options,
  });
  const result = spawnSync(process.execPath, [outfile], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  assert.is(result.status, 0, result.stderr.toString('utf8'));
  return result.stdout;
}

const PDF_A_SCRIPT = `
const PDFDocument = require('pdfkit');
const fonts = ['Courier', 'Courier-Bold', 'Courier-BoldOblique', 'Courier-Oblique', 'Helvetica', 'Helvetica-Bold',
  'Helvetica-BoldOblique', 'Helvetica-Oblique', 'Symbol', 'Times-Bold', 'Times-BoldItalic', 'Times-Italic', 'Times-Roman', 'ZapfDingbats'];
const doc = new PDFDocument({ pdfVersion: '1.4', subset: 'PDF/A-1b', compress: false, info: { Title: 'bundle' } });
const chunks = [];
doc.on('data', (c) => chunks.push(c));
doc.on('end', () => process.stdout.write(Buffer.concat(chunks)));
for (const font of fonts) doc.font(font).fontSize(10).text('The quick brown fox ' + font);
doc.end();
`;

test('pdfkit in the bundle: all 14 standard fonts and the PDF/A ICC profile, no pdfkit file on disk', async () => {
  const pdf = await bundleAndRun('pdfkit', PDF_A_SCRIPT, { plugins: [pdfkitFromBundle()], loader: PDFKIT_LOADERS });
  const text = pdf.toString('latin1');
  assert.is(text.slice(0, 5), '%PDF-');
  for (const font of ['Courier-BoldOblique', 'Helvetica', 'Symbol', 'Times-Roman', 'ZapfDingbats'])
    assert.ok(text.includes(`/BaseFont /${font}`), font);
  // the sRGB profile pdfkit would read from node_modules/pdfkit/js/data, embedded byte for byte
  const icc = fs.readFileSync(path.join(root, 'node_modules', 'pdfkit', 'js', 'data', 'sRGB_IEC61966_2_1.icc'));
  assert.ok(text.includes('/OutputIntent'), 'has an output intent');
  assert.ok(pdf.includes(icc), 'the ICC profile is embedded');
});

test('without the plugin the same bundle fails: the check above can fail', async () => {
  const outfile = path.join(dir, 'plain.cjs');
  await build({
    stdin: { contents: PDF_A_SCRIPT, resolveDir: root, loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'silent',
    outfile,
  });
  const result = spawnSync(process.execPath, [outfile], { cwd: dir });
  assert.is.not(result.status, 0);
});

test('embedded license keys: the module holds the PEMs of config/license-keys', async () => {
  const pems = licenseKeyPems(root);
  assert.ok(Object.keys(pems).length > 0);
  const out = await bundleAndRun(
    'keys',
    "process.stdout.write(JSON.stringify(require('./src/licensing/embedded-keys.ts').embeddedKeys));",
    {
      plugins: [embeddedLicenseKeys(root, pems)],
    },
  );
  assert.equal(JSON.parse(out.toString('utf8')), pems);
  // untouched (tsc, node bin/wip) the module embeds nothing: keys come from the program's directory
  assert.is(embeddedKeys, null);
});

test('jsonwebtoken without semver at load: PS256 tokens (the feature checked) still sign and verify', async () => {
  const script = `
    const jwt = require('jsonwebtoken');
    const { generateKeyPairSync } = require('node:crypto');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const token = jwt.sign({ sub: 'x' }, rsa.privateKey, { algorithm: 'PS256' });
    process.stdout.write(jwt.verify(token, rsa.publicKey, { algorithms: ['PS256'] }).sub);
  `;
  const out = await bundleAndRun('jwt', script, { plugins: [jsonwebtokenFeatureChecksAsTrue()] });
  assert.is(out.toString('utf8'), 'x');
  // esbuild names each bundled file in a comment
  assert.not.ok(fs.readFileSync(path.join(dir, 'jwt.cjs'), 'utf8').includes('node_modules/semver/'), 'semver is not in the bundle');
});

test('mime-types in the bundle: koa, accepts and type-is load without building its tables, which answer as before on first use', async () => {
  // mime-db's modules are bundled; each sets the flag the moment it is evaluated
  const script = `
const Koa = require('koa'); require('accepts'); const typeis = require('type-is');
const mime = require('mime-types');
const before = globalThis.mimeDbLoaded === true;
console.log(JSON.stringify({ before, ct: mime.contentType('json'), lookup: mime.lookup('a.xlsx'), ext: mime.extension('text/html'), types: mime.types.pdf,
  is: typeis.is('application/json; charset=utf-8', ['json']), after: globalThis.mimeDbLoaded === true, koa: typeof Koa }));`;
  const flagMimeDb = {
    name: 'flag-mime-db',
    setup(b: Parameters<NonNullable<Parameters<typeof build>[0]['plugins']>[number]['setup']>[0]) {
      b.onLoad({ filter: /[\\/]mime-db[\\/]index\.js$/ }, (args) => ({
        contents: `globalThis.mimeDbLoaded = true; module.exports = require(${JSON.stringify(path.join(path.dirname(args.path), 'db.json'))});`,
        loader: 'js',
      }));
    },
  };
  const out = JSON.parse((await bundleAndRun('mime', script, { plugins: [mimeTypesOnFirstUse(), flagMimeDb] })).toString('utf8'));
  assert.equal(out, {
    before: false,
    ct: 'application/json; charset=utf-8',
    lookup: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ext: 'html',
    types: 'application/pdf',
    is: 'json',
    after: true,
    koa: 'function',
  });
});

const DEPD_SCRIPT = `
// counts the line numbers read from call sites (the first made V8 compute the line ends of the whole script):
// the call sites a stack capture returns are handed out wrapped (their own methods cannot be replaced)
let asked = 0;
const capture = Error.captureStackTrace;
Error.captureStackTrace = function (obj, fn) {
  capture.call(Error, obj, fn);
  const stack = obj.stack;
  if (!Array.isArray(stack)) return;
  const wrapped = stack.map((site) => {
    const methods = {};
    for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(site))) if (typeof site[name] === 'function') methods[name] = (...args) => site[name](...args);
    methods.getLineNumber = () => (asked++, site.getLineNumber());
    return methods;
  });
  Object.defineProperty(obj, 'stack', { value: wrapped, configurable: true, writable: true });
};
const assert = require('http-assert');
const createError = require('http-errors');
const deprecate = require('depd')('bundle');
const old = deprecate.function(function old() { return 'old'; }, 'old() is deprecated');
const atLoad = asked;
old();
deprecate('a plain deprecation');
process.stdout.write(JSON.stringify({ atLoad, afterWarnings: asked > 0, status: createError(404).status, assert: typeof assert.equal }));
`;

test('depd in the bundle: no line number read as http-errors, http-assert and cookies load; the warnings print the same sites', async () => {
  const run = async (plugins: Plugin[], name: string) => {
    const outfile = path.join(dir, `${name}.cjs`);
    await build({
      stdin: { contents: DEPD_SCRIPT, resolveDir: root, sourcefile: `${name}.js`, loader: 'js' },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      absWorkingDir: root,
      logLevel: 'silent',
      outfile,
      plugins,
    });
    const result = spawnSync(process.execPath, [outfile], { cwd: dir });
    assert.is(result.status, 0, result.stderr.toString('utf8'));
    // each warning line without its timestamp, a site in the bundle by its function (the two bundles' lines differ)
    const warnings = result.stderr
      .toString('utf8')
      .split('\n')
      .map((line) => line.replace(/^.*? GMT /, '').replace(/\(\/\S+\/depd-\w+\.cjs:\d+:\d+\)/g, '(bundle)'));
    return { out: JSON.parse(result.stdout.toString('utf8')), warnings };
  };
  const patched = await run([depdLinesOnFirstUse()], 'depd-patched');
  const plain = await run([], 'depd-plain');
  assert.equal(patched.out, { atLoad: 0, afterWarnings: true, status: 404, assert: 'function' });
  assert.ok(plain.out.atLoad > 0, 'without the plugin the same loads read line numbers: the check above can fail');
  assert.equal(patched.warnings, plain.warnings);
  assert.ok(patched.warnings.some((line) => line.includes('old() is deprecated')));
});

test.run();

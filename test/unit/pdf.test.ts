import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer } from '../helpers/server';
import { renderMarkdownPdf } from '#lib/pdf';

const test = suite('renderMarkdownPdf (pdfkit loaded on demand)');

const pdfkitLoaded = () => Object.keys(require.cache).some((file) => file.includes(`${path.sep}node_modules${path.sep}pdfkit${path.sep}`));

test('a started server has not loaded pdfkit; the first PDF rendered loads it', async () => {
  const server = await startTestServer();
  try {
    assert.is(pdfkitLoaded(), false, 'pdfkit is loaded at start-up');
    const chunks: Buffer[] = [];
    for await (const chunk of renderMarkdownPdf('Terms', '# Terms\n\n- one\n\nBe nice.')) chunks.push(chunk as Buffer);
    const pdf = Buffer.concat(chunks);
    assert.is(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.ok(pdf.toString('latin1').trimEnd().endsWith('%%EOF'));
    assert.is(pdfkitLoaded(), true);
  } finally {
    await server.stop();
  }
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { csvDocument, csvField, csvRow } from '#lib/csv';

test('RFC 4180 quoting: commas, quotes and line breaks are quoted, quotes doubled; null is empty', () => {
  assert.is(
    csvRow(['plain', 'a,b', 'say "hi"', 'two\nlines', null, undefined, 3, true]),
    'plain,"a,b","say ""hi""","two\nlines",,,3,true\n',
  );
});

test('text a spreadsheet would run as a formula gets a leading quote; numbers stay numbers', () => {
  assert.is(csvField('=HYPERLINK("http://evil.test")'), `"'=HYPERLINK(""http://evil.test"")"`);
  for (const text of ['+1', '-1', '@SUM(A1)', '\tx']) assert.is(csvField(text), `'${text}`);
  assert.is(csvField(-1), '-1');
  assert.is(csvField('a=b'), 'a=b');
});

test('a document is a header line and one line per row', () => {
  const columns = [
    { header: 'name', value: (r: { n: string; v: number }) => r.n },
    { header: 'value', value: (r: { n: string; v: number }) => r.v },
  ];
  assert.is(
    csvDocument(columns, [
      { n: 'a', v: 1 },
      { n: 'b', v: 2 },
    ]),
    'name,value\na,1\nb,2\n',
  );
  assert.is(csvDocument(columns, []), 'name,value\n');
});

test.run();

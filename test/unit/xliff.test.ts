import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readXliff, writeXliff, XliffError, type XliffDocument } from '#lib/xliff';
import { localizeContent, sourceUnits, textHash, unitState } from '#domain/translations';
import type { Content } from '#domain/content';

const xliff = suite('XLIFF 2.0 (src/lib/xliff.ts) and translation units (src/domain/translations.ts)');

/** What XML and XLIFF tools are known to get wrong in texts. */
const HARD_TEXTS = [
  'plain',
  '  leading and trailing spaces  ',
  'line\nbreaks\r\nand a CR LF\rand a lone CR',
  'trailing newlines\n\n',
  '\n\n  \t ',
  'markup <b>bold</b> & entities &amp; &lt; &#13; "quotes" \'apostrophes\'',
  ']]> and <![CDATA[ x ]]>',
  'tabs\tand ü 漢字 😀 \u00a0 no-break space',
  '# Markdown\n\n- a\n  - b\n\n```\ncode  \n```\n',
];

const doc = (units: XliffDocument['units']): XliffDocument => ({ sourceLanguage: 'en', targetLanguage: 'de', fileId: 'version-7', units });

xliff('texts survive a write and a read byte for byte, sources and targets', () => {
  const units = HARD_TEXTS.map((text, i) => ({
    id: `u:${i}`,
    source: text,
    target: `${text}|de`,
    state: 'translated' as const,
    note: `note ${i}`,
  }));
  const back = readXliff(writeXliff(doc(units)));
  assert.is(back.fileId, 'version-7');
  assert.is(back.sourceLanguage, 'en');
  assert.is(back.targetLanguage, 'de');
  assert.equal(
    back.units,
    units.map(({ note: _note, ...unit }) => unit),
  );
});

xliff('the written file is XLIFF 2.0 a tool keeps intact: namespace, version, preserved spaces, no resegmenting, CR as &#13;', () => {
  const text = writeXliff(doc([{ id: 'step:a:body', source: 'a\r\nb', state: 'initial' }]));
  assert.match(text, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<xliff [^>]*>/);
  const root = /^<\?xml[^>]*>\n(<xliff [^>]*>)/.exec(text)![1];
  for (const attribute of ['xmlns="urn:oasis:names:tc:xliff:document:2.0"', 'version="2.0"', 'srcLang="en"', 'trgLang="de"'])
    assert.ok(root.includes(attribute), `${attribute} in ${root}`);
  assert.match(text, /<unit id="step:a:body" canResegment="no" xml:space="preserve">/);
  assert.match(text, /<segment state="initial">/);
  assert.match(text, /<source>a&#13;\nb<\/source>/);
  assert.not.match(text, /\r/);
});

xliff('reads what tools write: groups, split segments and ignorables, CDATA, comments, no state', () => {
  const back = readXliff(`<?xml version="1.0"?>
<!-- from a CAT tool -->
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.1" srcLang="en" trgLang="de">
  <file id="version-7">
    <group id="g1">
      <unit id="a">
        <segment state="final"><source>One.</source><target>Eins.</target></segment>
        <ignorable><source> </source><target> </target></ignorable>
        <segment state="translated"><source><![CDATA[Two <b>]]></source><target><![CDATA[Zwei <b>]]></target></segment>
      </unit>
    </group>
    <unit id="b"><segment><source>untouched</source></segment></unit>
  </file>
</xliff>`);
  assert.equal(back.units, [
    { id: 'a', source: 'One. Two <b>', target: 'Eins. Zwei <b>', state: 'translated' },
    { id: 'b', source: 'untouched', state: 'initial' },
  ]);
});

xliff('refuses what is not XLIFF 2.0 with a reason', () => {
  const refused = (text: string, reason: RegExp) => {
    try {
      readXliff(text);
    } catch (error) {
      assert.instance(error, XliffError);
      assert.match((error as Error).message, reason);
      return;
    }
    assert.unreachable(`accepted: ${text}`);
  };
  refused('', /./);
  refused('not xml at all', /./);
  refused(
    '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0"><file id="f"><unit id="a"><segment><source>x</source></unit></file></xliff>',
    /./,
  );
  refused('<!DOCTYPE x [<!ENTITY e "x">]><xliff/>', /DOCTYPE/);
  refused('<xliff version="2.0"><file id="f"/></xliff>', /namespace/);
  refused('<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2"><file/></xliff>', /namespace/);
  refused('<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="3.0"><file id="f"/></xliff>', /not XLIFF 2\.0/);
  refused('<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0"><file id="f"/><file id="g"/></xliff>', /one <file>/);
  refused(
    '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0"><file id="f"><unit><segment><source/></segment></unit></file></xliff>',
    /without an id/,
  );
  refused(
    '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0"><file id="f"><unit id="a"><segment state="done"><source/></segment></unit></file></xliff>',
    /not an XLIFF 2\.0 state/,
  );
});

const CONTENT: Content = {
  sections: [
    {
      id: 's',
      title: 'Section',
      steps: [
        {
          id: 'a',
          title: 'Step',
          body: '',
          media: [],
          model: null,
          fields: [
            {
              key: 'c',
              label: 'Colour',
              type: 'CHOICE',
              required: false,
              unit: null,
              min: null,
              max: null,
              options: ['red', 'green'],
              sensorId: null,
            },
          ],
        },
      ],
    },
  ],
};

xliff('units: every non-empty text; a translation of another text is stale and shows the source; options stay values', () => {
  assert.equal(
    sourceUnits(CONTENT).map((u) => [u.id, u.kind, u.text]),
    [
      ['sec:s:title', 'section-title', 'Section'],
      ['step:a:title', 'step-title', 'Step'],
      ['field:a:c:label', 'field-label', 'Colour'],
      ['option:a:c:0', 'option-label', 'red'],
      ['option:a:c:1', 'option-label', 'green'],
    ],
  );
  const units = {
    'step:a:title': { source: textHash('Step'), target: 'Schritt' },
    'option:a:c:1': { source: textHash('GREEN'), target: 'grün' },
  };
  const [section, title, , , option1] = sourceUnits(CONTENT);
  assert.is(unitState(section, units), 'missing');
  assert.is(unitState(title, units), 'translated');
  assert.is(unitState(option1, units), 'stale');
  const localized = localizeContent(CONTENT, units);
  assert.is(localized.sections[0].title, 'Section');
  assert.is(localized.sections[0].steps[0].title, 'Schritt');
  assert.equal(localized.sections[0].steps[0].fields[0].options, ['red', 'green']);
  assert.equal(localized.sections[0].steps[0].fields[0].optionLabels, ['red', 'green'], 'the stale option label falls back to the source');
});

xliff.run();

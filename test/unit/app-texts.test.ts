import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { APP_LANGUAGES, appTexts } from '#lib/app-texts';

// English and German complete — every text of the floor app in both, no empty one; every area file of
// config/i18n/app/ is read (none forgotten in the list). The same arguments in each translation (ICU, plurals
// included): test/unit/app-language.test.ts.

test('every key of the app namespace has an English and a German text', () => {
  const en = appTexts('en');
  const de = appTexts('de');
  assert.equal(Object.keys(de).sort(), Object.keys(en).sort());
  for (const [key, text] of Object.entries(en)) assert.ok(text.trim().length > 0 && de[key].trim().length > 0, key);
});

test('every file of config/i18n/app is part of the namespace', () => {
  const dir = path.resolve(__dirname, '..', '..', '..', 'config', 'i18n', 'app');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
  const keys = new Set(APP_LANGUAGES.flatMap((language) => Object.keys(appTexts(language))));
  for (const file of files) {
    const [area, language] = file.split('.');
    assert.ok((APP_LANGUAGES as readonly string[]).includes(language), file);
    const entries = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Record<string, string>;
    for (const key of Object.keys(entries)) assert.ok(keys.has(`${area}.${key}`), `${file}: ${key}`);
  }
});

test('every area the home page shows by its links has a heading text (a key built from its id)', () => {
  // shell/home.tsx: an area without its own Home card is shown as a card headed t(`shell.area.${id}`); a missing
  // text showed the raw key on the home page
  const areas = path.resolve(__dirname, '..', '..', '..', 'src', 'app', 'areas');
  const en = appTexts('en');
  for (const dir of fs.readdirSync(areas)) {
    const index = path.join(areas, dir, 'index.tsx');
    if (!fs.existsSync(index)) continue;
    const source = fs.readFileSync(index, 'utf8');
    const id = /\bid: '([a-z-]+)'/.exec(source)?.[1];
    assert.ok(id, `${dir}: an area id`);
    const linksOnly = !/\bHome: /.test(source) && /\bnav: \[\s*\{/.test(source);
    if (linksOnly) assert.ok(en[`shell.area.${id}`], `shell.area.${id}`);
  }
});

test.run();

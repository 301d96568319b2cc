import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IntlMessageFormat } from 'intl-messageformat';
import { APP_LANGUAGES, appTexts, type AppLanguage } from '#lib/app-texts';
import { ERROR_STATUS } from '../../src/errors';
import { ROLES } from '../../src/policies/roles';
import { formatsFor, parseNumber } from '../../src/app/format';
import { formatMessage } from '../../src/app/messages';
import { errorText } from '../../src/app/error-text';

// Language and numbers: the app's numbers and dates in the user's locale, a number typed in it read
// right ("2,5" is 2.5), its texts ICU MessageFormat (plurals) that never crash on an administrator's malformed
// override, an app text for every error code and every role in every app language, and one glossary per language.

// dates are shown in the device's time zone: this file pins it, so the expected texts hold on any machine
process.env.TZ = 'UTC';

const texts = (language: AppLanguage) => (language === 'en' ? appTexts('en') : { ...appTexts('en'), ...appTexts(language) });
const translate = (language: AppLanguage) => {
  const all = texts(language);
  return (key: string, values?: Record<string, string | number>) => (key in all ? formatMessage(all[key], language, values) : key);
};

const format = suite('format');

format('numbers, limits and quantities in the user language', () => {
  const de = formatsFor('de');
  const en = formatsFor('en');
  assert.is(de.number(2.5), '2,5');
  assert.is(en.number(2.5), '2.5');
  assert.is(de.number(1234.5), '1.234,5');
  assert.is(de.range(0.5, 2, 'bar'), '0,5–2 bar');
  assert.is(en.range(0.5, 2, 'bar'), '0.5–2 bar');
  assert.is(de.range(0.5, null, 'bar'), '≥ 0,5 bar');
  assert.is(de.range(null, 2.25, null), '≤ 2,25');
  assert.is(de.range(null, null, 'bar'), '');
  assert.is(de.quantity(2.6, 'bar'), '2,6 bar');
  assert.is(de.numberInput(1234.5), '1234,5');
  assert.is(de.numberInput(null), '');
});

format('dates and times: dd.mm.yyyy and 24 h in German', () => {
  const at = '2026-12-07T06:56:30.000Z';
  assert.is(formatsFor('de').dateTime(at), '07.12.2026, 06:56');
  assert.is(formatsFor('de').date(at), '07.12.2026');
  assert.is(formatsFor('de').exactTime(at), '07.12.2026, 06:56:30');
  assert.is(formatsFor('de').time(at), '06:56');
  assert.is(formatsFor('en').dateTime(at), 'Dec 7, 2026, 6:56 AM');
  assert.is(formatsFor('de').dateTime(null), '');
  assert.is(formatsFor('de').dateTime('not a date'), 'not a date');
  assert.is(formatsFor('de').list(['a', 'b', 'c']), 'a, b und c');
});

format.run();

const parse = suite('parseNumber');

parse('the language decimal separator, and the other one where it cannot be a group', () => {
  const cases: [string, AppLanguage, number][] = [
    ['2,5', 'de', 2.5],
    ['2.5', 'de', 2.5],
    [' -0,5 ', 'de', -0.5],
    ['−3', 'de', -3],
    [',5', 'de', 0.5],
    ['0.125', 'de', 0.125],
    ['1234,5', 'de', 1234.5],
    ['12', 'de', 12],
    ['+7', 'de', 7],
    ['2.5', 'en', 2.5],
    ['2,5', 'en', 2.5],
    ['0,125', 'en', 0.125],
    ['1234.5', 'en', 1234.5],
  ];
  for (const [text, language, value] of cases) assert.equal(parseNumber(text, language), { value }, `${text} (${language})`);
});

parse('a possible group separator is refused as ambiguous, anything else as invalid', () => {
  const cases: [string, AppLanguage, string][] = [
    ['1.234', 'de', 'ambiguous'],
    ['1.234,5', 'de', 'ambiguous'],
    ['1 234', 'de', 'ambiguous'],
    ['1,234', 'en', 'ambiguous'],
    ['1,234.5', 'en', 'ambiguous'],
    ['1.2.3', 'de', 'ambiguous'],
    ['', 'de', 'empty'],
    ['   ', 'en', 'empty'],
    ['abc', 'de', 'invalid'],
    ['1e3', 'en', 'invalid'],
    ['2 bar', 'de', 'invalid'],
    ['-', 'de', 'invalid'],
    [',', 'de', 'invalid'],
  ];
  for (const [text, language, error] of cases) assert.equal(parseNumber(text, language), { error }, `${text} (${language})`);
});

parse('what the app shows in an input reads back as the same number', () => {
  for (const language of APP_LANGUAGES)
    for (const value of [0, 2.5, -0.5, 1234.5, 1000, 0.001, 123456789.25]) {
      const shown = formatsFor(language).numberInput(value);
      assert.equal(parseNumber(shown, language), { value }, `${value} shown as ${shown} (${language})`);
    }
});

parse.run();

const messages = suite('messages');

messages('plurals in both languages, numbers in the placeholder formatted', () => {
  const de = translate('de');
  const en = translate('en');
  assert.is(de('operator.home.waiting', { n: 1 }), '1 offener Auftrag ist Ihnen zugewiesen');
  assert.is(de('operator.home.waiting', { n: 2 }), '2 offene Aufträge sind Ihnen zugewiesen');
  assert.is(en('operator.home.waiting', { n: 1 }), '1 open job assigned to you');
  assert.is(en('operator.progress', { done: 0, total: 1 }), '0 of 1 step done');
  assert.is(en('operator.progress', { done: 2, total: 6 }), '2 of 6 steps done');
  assert.is(de('operator.review.photos', { n: 1 }), '1 Foto');
  assert.is(de('operator.review.photos', { n: 1200 }), '1.200 Fotos');
  assert.is(de('supervisor.home.summary', { open: 1, overdue: 0 }), '1 offener Auftrag, 0 überfällig.');
  // a plain placeholder shows its value as given: an id is not grouped
  assert.is(formatMessage('Auftrag {id}, {n, plural, other {# Schritte}}', 'de', { id: 12345, n: 1234 }), 'Auftrag 12345, 1.234 Schritte');
});

messages('a malformed or incomplete text shows as written, its plain placeholders filled: never a crash', () => {
  assert.is(formatMessage('{name} hat {n, plural, one {# Schritt}', 'de', { name: 'Anna', n: 2 }), 'Anna hat {n, plural, one {# Schritt}');
  assert.is(formatMessage('{n, plural, one {# Schritt} other {# Schritte}}', 'de', {}), '{n, plural, one {# Schritt} other {# Schritte}}');
  assert.is(formatMessage('Hallo {name}', 'de'), 'Hallo {name}');
  assert.is(formatMessage('<b>{name}</b> and don’t', 'en', { name: 'Anna' }), '<b>Anna</b> and don’t');
  assert.is(formatMessage("It's {name}'s", 'en', { name: 'Anna' }), "It's Anna's");
});

messages('every built-in text is valid ICU, formats with its arguments, and both languages use the same ones', () => {
  const en = appTexts('en');
  for (const language of APP_LANGUAGES) {
    const all = appTexts(language);
    for (const [key, text] of Object.entries(all)) {
      let message: IntlMessageFormat;
      try {
        message = new IntlMessageFormat(text, language, undefined, { ignoreTag: true });
      } catch (error) {
        throw new Error(`${language} ${key} is not ICU MessageFormat: ${(error as Error).message}`, { cause: error });
      }
      const args = argumentsOf(message.getAst());
      assert.equal(args, argumentsOf(new IntlMessageFormat(en[key], 'en', undefined, { ignoreTag: true }).getAst()), `arguments of ${key}`);
      const values = Object.fromEntries([...args].map((name) => [name, 3]));
      const out = message.format(values);
      assert.type(out, 'string', key);
      assert.not.match(out as string, /\{[A-Za-z]/, `${language} ${key} leaves a placeholder: ${String(out)}`);
      // "step(s)", "Foto(s)": a count is a plural
      assert.not.match(text, /\((s|e|en|n)\)/, `${language} ${key}: write a plural, not "(s)"`);
    }
  }
});

/** The names of a message's arguments, nested ones (inside a plural's branches) included. */
function argumentsOf(ast: ReturnType<IntlMessageFormat['getAst']>): string[] {
  const names = new Set<string>();
  const walk = (elements: ReturnType<IntlMessageFormat['getAst']>) => {
    for (const element of elements) {
      // a literal's (type 0, TYPE.literal of the parser) value is its text; any other string value names an argument
      if ('value' in element && typeof element.value === 'string' && (element.type as number) !== 0) names.add(element.value);
      if ('options' in element)
        for (const option of Object.values(element.options as Record<string, { value: typeof elements }>)) walk(option.value);
    }
  };
  walk(ast);
  return [...names].sort();
}

messages.run();

const errors = suite('error texts');

const ERROR_CODES = Object.keys(ERROR_STATUS);
/** the codes the app makes itself (src/app/api/client.ts, src/app/offline) */
const APP_CODES = ['OFFLINE', 'NETWORK', 'ERROR', 'BAD_RESPONSE', 'GRAPHQL_ERROR', 'PHOTO_MISSING'];

errors('every error code of the API and of the app has an app text in every app language', () => {
  for (const language of APP_LANGUAGES) {
    const all = texts(language);
    const own = appTexts(language);
    for (const code of [...ERROR_CODES, ...APP_CODES]) assert.ok(own[`common.error.${code}`], `${language}: common.error.${code}`);
    // and no text for a code that does not exist (a renamed code leaves none behind)
    for (const key of Object.keys(all).filter((k) => k.startsWith('common.error.')))
      assert.ok([...ERROR_CODES, ...APP_CODES].includes(key.slice('common.error.'.length).replace(/\.general$/, '')), key);
  }
});

const refusalIn = (language: AppLanguage, overrides: Record<string, string> = {}) => {
  const all = { ...texts(language), ...overrides };
  const t = (key: string, values?: Record<string, string | number>) => (key in all ? formatMessage(all[key], language, values) : key);
  return (code: string, message: string, details?: Record<string, unknown>) =>
    errorText({ language, texts: all, t, format: formatsFor(language) }, { code, message, details });
};

errors('the app text, with the details filled in; the server message only for a code the app has no text for', () => {
  const de = refusalIn('de');
  const skills = [
    { skill: 'Pumpenwartung', requiredLevel: 2, heldLevel: null },
    { skill: 'Schweißen', requiredLevel: 1, heldLevel: 0 },
  ];
  assert.is(
    de('NOT_QUALIFIED', 'The user is not qualified for this work: lacks Pumpenwartung', { userId: 3, skills, retrainingDue: [] }),
    'Nicht qualifiziert: Diese Arbeit erfordert Pumpenwartung (Stufe 2) und Schweißen (Stufe 1).',
  );
  assert.is(
    de('NOT_QUALIFIED', 'The user is not qualified for this work: has not acknowledged…', { skills: [], retrainingDue: [{}] }),
    'Nicht qualifiziert: Die Nachschulung zu einer neuen Version ist noch nicht bestätigt.',
  );
  // a completion blocker carries no details: the text that needs none
  assert.is(de('NOT_QUALIFIED', 'The user is not qualified for this work: lacks X'), 'Sie sind für diese Arbeit nicht qualifiziert.');
  assert.is(
    de('INVALID_TRANSITION', 'Cannot complete in state OPEN', { action: 'complete', state: 'OPEN', allowedFrom: ['IN_PROGRESS'] }),
    'Im Status „Offen“ nicht möglich.',
  );
  assert.is(
    de('JOB_CLOSED', 'The job is COMPLETED', { jobId: 4, state: 'COMPLETED' }),
    'Der Auftrag ist abgeschlossen („Abgeschlossen“): Es kann nichts mehr erfasst werden.',
  );
  assert.is(de('SOMETHING_NEW', 'A message only the server has'), 'A message only the server has');
  assert.is(refusalIn('en')('FEATURE_NOT_LICENSED', 'x', { feature: 'sso' }), 'The license does not include this feature (sso).');
});

errors('an administrator override that is malformed falls back, never crashes', () => {
  const broken = refusalIn('de', { 'common.error.NOT_QUALIFIED': '{count, plural, one {kaputt}' });
  assert.is(
    broken('NOT_QUALIFIED', 'server text', { skills: [{ skill: 'A', requiredLevel: 1 }] }),
    'Sie sind für diese Arbeit nicht qualifiziert.',
  );
  const both = refusalIn('de', { 'common.error.CONFLICT': '{oops' });
  assert.is(both('CONFLICT', 'Stale revision'), 'Stale revision');
});

errors('every code formats with the details it is documented to carry', () => {
  for (const language of APP_LANGUAGES) {
    const text = refusalIn(language);
    for (const code of [...ERROR_CODES, ...APP_CODES]) {
      const out = text(code, 'SERVER MESSAGE', { state: 'OPEN', action: 'complete', feature: 'sso', skills: [], retrainingDue: [] });
      assert.not.ok(out.includes('SERVER MESSAGE') || /\{[A-Za-z]/.test(out), `${language} ${code}: ${out}`);
    }
  }
});

errors.run();

const words = suite('roles and glossary');

words('every role has a name in every app language', () => {
  for (const language of APP_LANGUAGES)
    for (const role of ROLES) assert.ok(appTexts(language)[`common.role.${role}`], `${language} ${role}`);
  assert.is.not(appTexts('de')['common.role.approver'], 'approver');
});

interface Glossary {
  terms: { term: string; forbidden: string[] }[];
}

for (const language of APP_LANGUAGES)
  words(`every ${language} app text uses the glossary's terms, not their synonyms`, () => {
    const file = path.resolve(__dirname, '..', '..', '..', 'config', 'i18n', `glossary.${language}.json`);
    const glossary = JSON.parse(fs.readFileSync(file, 'utf8')) as Glossary;
    const problems: string[] = [];
    for (const { term, forbidden } of glossary.terms)
      for (const synonym of forbidden) {
        const pattern = new RegExp(`(?<![\\p{L}-])(?:${synonym})(?![\\p{L}])`, 'iu');
        for (const [key, text] of Object.entries(appTexts(language))) {
          // the words people read, not the arguments' names (`{limits}`, `{n, plural, one {…}}`)
          const words = text.replace(/\{\s*\w+\s*(,\s*\w+\s*,?)?/g, '{');
          if (pattern.test(words)) problems.push(`${key}: "${pattern.exec(words)![0]}" → ${term}`);
        }
      }
    assert.equal(problems, []);
  });

words('the glossary catches a synonym (the check can fail)', () => {
  const pattern = new RegExp(`(?<![\\p{L}-])(?:Bediener\\p{L}*)(?![\\p{L}])`, 'iu');
  assert.ok(pattern.test('So sieht es ein Bediener.'));
  assert.ok(pattern.test('Bedienervorschau'));
  assert.not.ok(pattern.test('Werker'));
});

words.run();

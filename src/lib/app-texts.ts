// The floor app's built-in texts: the `app` namespace of the i18n
// bundles, one file per area and language under config/i18n/app/, so the four
// app engineers never edit the same file. Imported by the server
// (src/services/i18n.ts: the built-in bundle, overridable per client like any
// namespace) and by the app itself (src/app/i18n.ts: the sign-in page and an
// offline start need texts before any bundle can be fetched). Plain data, no
// Node: it is bundled into the browser too. `common` holds what every area
// shares: the texts of the error codes, role and action names, the
// number-entry hints.
import shellEn from '../../config/i18n/app/shell.en.json';
import shellDe from '../../config/i18n/app/shell.de.json';
import authorEn from '../../config/i18n/app/author.en.json';
import authorDe from '../../config/i18n/app/author.de.json';
import reviewEn from '../../config/i18n/app/review.en.json';
import reviewDe from '../../config/i18n/app/review.de.json';
import operatorEn from '../../config/i18n/app/operator.en.json';
import operatorDe from '../../config/i18n/app/operator.de.json';
import supervisorEn from '../../config/i18n/app/supervisor.en.json';
import supervisorDe from '../../config/i18n/app/supervisor.de.json';
import rulesEn from '../../config/i18n/app/rules.en.json';
import rulesDe from '../../config/i18n/app/rules.de.json';
import jobsEn from '../../config/i18n/app/jobs.en.json';
import jobsDe from '../../config/i18n/app/jobs.de.json';
import qualificationsEn from '../../config/i18n/app/qualifications.en.json';
import qualificationsDe from '../../config/i18n/app/qualifications.de.json';
import commonEn from '../../config/i18n/app/common.en.json';
import commonDe from '../../config/i18n/app/common.de.json';

/** The app's languages with complete texts. */
export const APP_LANGUAGES = ['en', 'de'] as const;
export type AppLanguage = (typeof APP_LANGUAGES)[number];

/** Each area's file; a key `x.y` of the operator's file is `operator.x.y` in the namespace. */
const FILES: Record<AppLanguage, Record<string, Record<string, string>>> = {
  en: {
    shell: shellEn,
    author: authorEn,
    review: reviewEn,
    operator: operatorEn,
    supervisor: supervisorEn,
    rules: rulesEn,
    jobs: jobsEn,
    qualifications: qualificationsEn,
    common: commonEn,
  },
  de: {
    shell: shellDe,
    author: authorDe,
    review: reviewDe,
    operator: operatorDe,
    supervisor: supervisorDe,
    rules: rulesDe,
    jobs: jobsDe,
    qualifications: qualificationsDe,
    common: commonDe,
  },
};

/** The `app` namespace's built-in texts of a language: key (`<area>.<key>`) → text. */
export function appTexts(language: AppLanguage): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const [area, entries] of Object.entries(FILES[language]))
    for (const [key, text] of Object.entries(entries)) texts[`${area}.${key}`] = text;
  return texts;
}

// types only: the service worker's bundle (offline/job-data) imports this module
import type { I18n, Translate } from '../i18n';

/**
 * Qualifications told before the work (docs/qualifications.md, "Told before
 * the work"): the server's verdict — Job.viewerQualification for the signed-in
 * user, Template.assigneeQualifications for the people a job is given to — in
 * words: "needs Pump maintenance, level 2 (you hold level 1)". The app decides
 * nothing here: it says what the gate that refuses with NOT_QUALIFIED says.
 */

// declared with the job the device keeps (the sync engine's types compile without the browser)
export type { QualificationCheck } from '../offline/job-types';
import type { QualificationCheck } from '../offline/job-types';

/** What a query selects of a QualificationCheck. */
export const QUALIFICATION_FIELDS = 'qualified overridden retrainingDue lacking { skill requiredLevel heldLevel expiresAt reason }';

type FormatDate = I18n['formatDate'];

/**
 * Each lacking skill in words, then a due retraining: one text per reason. `whose`: 'mine' speaks to the signed-in
 * user ("you hold level 1"), 'theirs' of someone else ("holds level 1").
 */
export function lackTexts(t: Translate, formatDate: FormatDate, check: QualificationCheck, whose: 'mine' | 'theirs' = 'mine'): string[] {
  const prefix = whose === 'mine' ? 'rules.qualification' : 'rules.qualification.theirs';
  const texts = check.lacking.map((s) =>
    t(`${prefix}.${s.reason}`, {
      skill: s.skill,
      level: s.requiredLevel,
      held: s.heldLevel ?? 0,
      date: formatDate(s.expiresAt),
    }),
  );
  if (check.retrainingDue) texts.push(t(`${prefix}.retrainingDue`));
  return texts;
}

/** Why the user may not work, in one line ("" when they may): for a job card and a disabled button's description. */
export function refusalText(t: Translate, formatDate: FormatDate, check: QualificationCheck | null | undefined): string {
  if (!check || check.qualified) return '';
  return lackTexts(t, formatDate, check).join('; ');
}

/** A version's required skills in words: "Pump maintenance, level 2; Forklift, level 1". */
export function requiredSkillsText(t: Translate, required: readonly { skill: string; level: number }[]): string {
  return required.map((r) => t('rules.qualification.required', { skill: r.skill, level: r.level })).join('; ');
}

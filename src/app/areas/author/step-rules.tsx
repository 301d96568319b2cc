import { ROLES } from '../../../policies/roles';
import { useI18n } from '../../i18n';
import { ConditionEditor } from './condition-editor';
import { inputId, pathOf, stepsInOrder, type EditorContent, type EditorSignoff, type EditorStep, type StepAt } from './model';
import { ErrorText, type Problems } from './problems';
import { SkillRequirements } from './skill-requirements';

/**
 * A step's execution rules (docs/execution-rules.md): when it applies (its
 * condition over earlier steps), who signs it (the performer; a verifier of
 * some roles) and whether the operator may mark it not applicable.
 */
export function StepRules({
  step,
  at,
  number,
  content,
  problems,
  notApplicable,
  edit,
}: {
  step: EditorStep;
  at: StepAt;
  number: number;
  content: EditorContent;
  problems: Problems;
  notApplicable: boolean;
  edit: (change: (s: EditorStep) => EditorStep) => void;
}) {
  const { t, roleName } = useI18n();
  const earlier = stepsInOrder(content)
    .filter((s) => s.number < number)
    .map(({ step: s, number: n }) => ({ step: s, number: n }));
  const signoff: EditorSignoff = step.signoff ?? { performer: false, verifier: null };
  const setSignoff = (next: EditorSignoff) => edit((s) => ({ ...s, signoff: next.performer || next.verifier ? next : null }));
  const path = (prop: string) => pathOf.step(at, prop);
  const id = (prop: string) => inputId(path(prop));
  return (
    <div class="step-rules">
      <h4 class="subheading">{t('author.rules.heading')}</h4>
      <ConditionEditor
        path={path('when')}
        value={step.when}
        earlier={earlier}
        content={content}
        problems={problems}
        owner={t('author.step.short', { number })}
        onChange={(when) => edit((s) => ({ ...s, when }))}
      />
      <fieldset class="signoff-editor" id={id('signoff')}>
        <legend>{t('author.rules.signoff')}</legend>
        <div class="form-row checkbox-row">
          <input
            id={id('signoff.performer')}
            type="checkbox"
            checked={signoff.performer}
            onChange={(e) => setSignoff({ ...signoff, performer: e.currentTarget.checked })}
          />
          <label for={id('signoff.performer')}>{t('author.rules.performer')}</label>
        </div>
        <div class="form-row checkbox-row">
          <input
            id={id('signoff.verifier')}
            type="checkbox"
            checked={signoff.verifier !== null}
            onChange={(e) => setSignoff({ ...signoff, verifier: e.currentTarget.checked ? { roles: ['approver'] } : null })}
          />
          <label for={id('signoff.verifier')}>{t('author.rules.verifier')}</label>
        </div>
        {signoff.verifier && (
          <fieldset class="verifier-roles">
            <legend>{t('author.rules.verifierRoles')}</legend>
            {ROLES.map((role) => (
              <label key={role} class="checkbox-inline">
                <input
                  type="checkbox"
                  checked={signoff.verifier!.roles.includes(role)}
                  onChange={(e) => {
                    const roles = e.currentTarget.checked
                      ? [...signoff.verifier!.roles, role]
                      : signoff.verifier!.roles.filter((r) => r !== role);
                    setSignoff({ ...signoff, verifier: { roles } });
                  }}
                />{' '}
                {roleName(role)}
              </label>
            ))}
          </fieldset>
        )}
        {step.signoff && (
          <SkillRequirements
            value={signoff.skills ?? []}
            onChange={(skills) => setSignoff({ ...signoff, skills })}
            path={path('signoff.skills')}
            legend={t('author.skills.signoffHeading')}
            hint={t('author.skills.signoffHint')}
            problems={problems}
          />
        )}
        <ErrorText problems={problems} path={path('signoff')} />
        <ErrorText problems={problems} path={path('signoff.verifier.roles')} />
      </fieldset>
      {notApplicable && (
        <div class="form-row checkbox-row">
          <input
            id={id('allowNotApplicable')}
            type="checkbox"
            checked={step.allowNotApplicable}
            onChange={(e) => edit((s) => ({ ...s, allowNotApplicable: e.currentTarget.checked }))}
          />
          <label for={id('allowNotApplicable')}>{t('author.rules.allowNotApplicable')}</label>
          <ErrorText problems={problems} path={path('allowNotApplicable')} />
        </div>
      )}
    </div>
  );
}

import { graphql } from '../../api/client';
import { useT } from '../../i18n';
import { useAsync } from '../../ui';
import { inputId, LIMITS, type SkillRequirement } from './model';
import { ErrorText, type Problems } from './problems';

/**
 * Required skills (docs/qualifications.md): the skills whoever works on a job
 * of the version must hold — or, on a step's sign-off, whoever signs it — each
 * at a level. A requirement names a skill by its name, chosen from the
 * client's skills; a name no skill has (an imported template) stays as it is,
 * marked, since nobody holds it until the skill exists and is granted.
 */

interface ClientSkill {
  name: string;
  levels: number;
}

let skillsOfClient: Promise<ClientSkill[]> | undefined;

/** The client's skills, asked once per page load (every user may read them). */
function clientSkills(): Promise<ClientSkill[]> {
  skillsOfClient ??= graphql<{ skills: { nodes: ClientSkill[] } }>(
    'query AuthorSkills { skills(first: 200) { nodes { name levels } } }',
  ).then(
    (data) => data.skills.nodes,
    (error: unknown) => {
      skillsOfClient = undefined; // ask again next time
      throw error;
    },
  );
  return skillsOfClient;
}

export function SkillRequirements({
  value,
  onChange,
  path,
  legend,
  hint,
  problems,
}: {
  value: readonly SkillRequirement[];
  onChange: (next: SkillRequirement[]) => void;
  /** the list's document path (`qualifications`, `sections.0.steps.1.signoff.skills`): where the server's problems land */
  path: string;
  legend: string;
  hint: string;
  problems: Problems;
}) {
  const t = useT();
  const [skills] = useAsync(clientSkills);
  const known = skills.status === 'done' ? skills.value : [];
  const levelsOf = (name: string) => known.find((s) => s.name === name)?.levels ?? LIMITS.level;
  const set = (index: number, change: Partial<SkillRequirement>) => onChange(value.map((r, i) => (i === index ? { ...r, ...change } : r)));
  const unused = known.filter((s) => !value.some((r) => r.skill === s.name));

  return (
    <fieldset class="skill-requirements" id={inputId(path)}>
      <legend>{legend}</legend>
      <p class="hint">{hint}</p>
      {value.length === 0 && <p class="muted">{t('author.skills.none')}</p>}
      {value.map((requirement, i) => {
        const id = (prop: string) => inputId(`${path}.${i}.${prop}`);
        const isKnown = known.some((s) => s.name === requirement.skill);
        return (
          <div class="skill-requirement" key={`${i}-${requirement.skill}`}>
            <label for={id('skill')}>{t('author.skills.skill')}</label>
            <select id={id('skill')} value={requirement.skill} onChange={(e) => set(i, { skill: e.currentTarget.value, level: 1 })}>
              {!isKnown && <option value={requirement.skill}>{t('author.skills.unknown', { name: requirement.skill })}</option>}
              {known
                .filter((s) => s.name === requirement.skill || !value.some((r) => r.skill === s.name))
                .map((s) => (
                  <option key={s.name} value={s.name}>
                    {s.name}
                  </option>
                ))}
            </select>
            <label for={id('level')}>{t('author.skills.level')}</label>
            <select id={id('level')} value={String(requirement.level)} onChange={(e) => set(i, { level: Number(e.currentTarget.value) })}>
              {Array.from({ length: Math.max(levelsOf(requirement.skill), requirement.level) }, (_, l) => (
                <option key={l + 1} value={String(l + 1)}>
                  {l + 1}
                </option>
              ))}
            </select>
            <button
              type="button"
              class="btn btn-ghost"
              onClick={() => onChange(value.filter((_, k) => k !== i))}
              aria-label={t('author.skills.remove', { name: requirement.skill })}
            >
              {t('author.skills.removeShort')}
            </button>
            <ErrorText problems={problems} path={`${path}.${i}.skill`} />
            <ErrorText problems={problems} path={`${path}.${i}.level`} />
          </div>
        );
      })}
      <ErrorText problems={problems} path={path} />
      {skills.status === 'error' && <p class="error">{t('author.skills.loadFailed')}</p>}
      {skills.status === 'done' && known.length === 0 && <p class="muted">{t('author.skills.noneDefined')}</p>}
      {unused.length > 0 && value.length < LIMITS.requirements && (
        <button type="button" class="btn btn-secondary" onClick={() => onChange([...value, { skill: unused[0].name, level: 1 }])}>
          {t('author.skills.add')}
        </button>
      )}
    </fieldset>
  );
}

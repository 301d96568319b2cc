import { useI18n } from '../i18n';
import { lackTexts, type QualificationCheck } from './qualification';

/**
 * The signed-in user's standing on a job, as a notice: why they may not work on it (and whom to ask), or that an
 * override lets them. `id`: what a disabled action names as its description (aria-describedby).
 */
export function QualificationNotice({ check, id }: { check: QualificationCheck | null | undefined; id?: string }) {
  const { t, formatDate } = useI18n();
  if (!check || (check.qualified && !check.overridden)) return null;
  const texts = lackTexts(t, formatDate, check);
  return (
    <div
      id={id}
      class={`notice qualification-notice notice-${check.qualified ? 'info' : 'warning'}`}
      role="status"
      data-qualified={String(check.qualified)}
    >
      <p class="qualification-title">
        <strong>{check.qualified ? t('rules.qualification.overridden') : t('rules.qualification.notQualified')}</strong>
      </p>
      <ul>
        {texts.map((text) => (
          <li key={text}>{text}</li>
        ))}
      </ul>
      {!check.qualified && <p>{t('rules.qualification.ask')}</p>}
    </div>
  );
}

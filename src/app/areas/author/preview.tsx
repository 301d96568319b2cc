import { useState } from 'preact/hooks';
import { stepsInOrder, type EditorContent } from './model';
import type { FileInfo } from './queries';
import { ruleValue, StepView } from './step-view';
import { useI18n } from '../../i18n';

/** The draft as an operator runs it: one step at a time, previous and next. */
export function Preview({
  content,
  files,
  sensors,
}: {
  content: EditorContent;
  files: ReadonlyMap<number, FileInfo>;
  sensors: { databaseId: number; name: string }[];
}) {
  const { t, readNumber } = useI18n();
  const steps = stepsInOrder(content);
  const [index, setIndex] = useState(0);
  // what the author tries in the preview, by step and key: a later step's formula reads an earlier step's values
  const [entered, setEntered] = useState<Record<string, Record<string, string>>>({});
  if (steps.length === 0) return <p class="muted">{t('author.preview.empty')}</p>;
  const current = Math.min(index, steps.length - 1);
  const { step, section, number } = steps[current];
  return (
    <section class="preview operator-frame" aria-label={t('author.preview.region')}>
      <p class="muted preview-note">{t('author.preview.note')}</p>
      <StepView
        key={step.stepId}
        step={step}
        sectionTitle={section.title}
        number={number}
        count={steps.length}
        files={files}
        sensorName={(id) => sensors.find((s) => s.databaseId === id)?.name}
        content={content}
        sectionWhen={section.when}
        values={entered[step.stepId] ?? {}}
        onValue={(key, value) => setEntered((all) => ({ ...all, [step.stepId]: { ...all[step.stepId], [key]: value } }))}
        earlier={(stepId, key) =>
          ruleValue(
            steps.find((s) => s.step.stepId === stepId)?.step.fields.find((f) => f.key === key),
            entered[stepId]?.[key],
            readNumber,
          )
        }
      />
      <nav class="preview-nav" aria-label={t('author.preview.nav')}>
        <button type="button" class="btn btn-secondary" disabled={current === 0} onClick={() => setIndex(current - 1)}>
          {t('author.preview.previous')}
        </button>
        <span>{t('author.preview.stepOf', { number, count: steps.length })}</span>
        <button type="button" class="btn btn-primary" disabled={current === steps.length - 1} onClick={() => setIndex(current + 1)}>
          {t('author.preview.next')}
        </button>
      </nav>
    </section>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { Badge, type Tone } from '../../ui';
import { useT, type Translate } from '../../i18n';
import type { Formats } from '../../format';
import { isLocalFileRef, localPhotoBlob, type FieldDef, type JobData, type LocalFileRef, type LocalJobView } from '../../offline';
import { useObjectUrl } from './hooks';
import { plainText } from '../../ui/plain-text';

const PRIORITY_TONE: Record<JobData['priority'], Tone> = { HIGH: 'danger', MEDIUM: 'warning', LOW: 'neutral' };
const STATE_TONE: Record<JobData['state'], Tone> = {
  OPEN: 'info',
  IN_PROGRESS: 'info',
  PAUSED: 'warning',
  COMPLETED: 'success',
  CANCELLED: 'neutral',
  REVIEWED: 'success',
};

export function PriorityBadge({ priority }: { priority: JobData['priority'] }) {
  const t = useT();
  return <Badge tone={PRIORITY_TONE[priority]}>{t(`operator.priority.${priority}`)}</Badge>;
}

export function StateBadge({ state }: { state: JobData['state'] }) {
  const t = useT();
  return <Badge tone={STATE_TONE[state]}>{t(`operator.state.${state}`)}</Badge>;
}

/** The state the server confirmed, and beside it the transition still waiting on the device (never shown as done). */
export function JobStateBadges({ view }: { view: Pick<LocalJobView, 'state' | 'pendingTransition'> }) {
  const t = useT();
  return (
    <>
      <StateBadge state={view.state} />
      {view.pendingTransition && (
        <>
          {' '}
          <Badge tone="warning">{t(`operator.state.waiting.${view.pendingTransition}`)}</Badge>
        </>
      )}
    </>
  );
}

/** "10–20 Nm", "≥ 0,5 Nm", "≤ 20 Nm" (in the user's language) or '' */
export function rangeText(format: Formats, field: Pick<FieldDef, 'min' | 'max' | 'unit'>): string {
  return format.range(field.min, field.max, field.unit);
}

/** A recorded value as text, numbers in the user's language (photos as a count). */
export function valueText(t: Translate, format: Formats, field: FieldDef | undefined, value: unknown): string {
  if (value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0))
    return t('operator.conflict.empty');
  if (field?.type === 'PASS_FAIL') return value === 'PASS' || value === true ? t('operator.run.pass') : t('operator.run.fail');
  if (field?.type === 'PHOTO') return t('operator.review.photos', { n: (Array.isArray(value) ? value : [value]).length });
  if (typeof value === 'number') return format.quantity(value, field?.unit);
  return plainText(value);
}

export function personName(p: { firstName: string; lastName: string; email: string }): string {
  return [p.firstName, p.lastName].filter(Boolean).join(' ') || p.email;
}

/** A photo: a file of the server (by id) or one still on the device (a LocalFileRef). */
export function Photo({ value, alt }: { value: number | LocalFileRef; alt: string }) {
  const [blob, setBlob] = useState<Blob>();
  useEffect(() => {
    if (isLocalFileRef(value)) void localPhotoBlob(value).then(setBlob);
  }, [isLocalFileRef(value) ? value.localFile : value]);
  const local = useObjectUrl(blob);
  const src = isLocalFileRef(value) ? local : `/api/client/files/${value}`;
  return src ? (
    <img class="photo-thumb" src={src} alt={alt} width={120} height={90} />
  ) : (
    <span class="photo-thumb" role="img" aria-label={alt} />
  );
}

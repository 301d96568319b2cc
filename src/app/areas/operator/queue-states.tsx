import { useI18n, useT } from '../../i18n';
import { Badge, Button, Card, type Tone } from '../../ui';
import { discardSetAside, stepsOfJob, type LocalJobView, type UserKey } from '../../offline';
import { itemLabel } from './conflicts';
import { valueText } from './common';

/** How many confirmed changes the list shows (the device keeps a day of them). */
const CONFIRMED_SHOWN = 10;

/**
 * Every change of the job this device made, with its state in words:
 * waiting to send, sent (waiting for the server's answer), refused or in
 * conflict (the decision panel above says what to do), confirmed by the
 * server; and the records the operator set aside ("keep theirs"), kept here
 * until they discard them. Nothing here is "done" before the server said so.
 */
export function QueueStates({ user, view }: { user: UserKey; view: LocalJobView }) {
  const t = useT();
  const { formatDate, errorText, format } = useI18n();
  const steps = stepsOfJob(view.job);
  const waiting = view.items.filter((i) => i.kind !== 'upload');
  const confirmed = view.confirmed.filter((a) => a.item.kind !== 'upload').slice(0, CONFIRMED_SHOWN);
  if (waiting.length === 0 && confirmed.length === 0 && view.setAside.length === 0 && view.lost.length === 0) return null;
  const stateOf = (item: LocalJobView['items'][number]): [string, Tone] =>
    item.state === 'conflict'
      ? [t('operator.queue.state.conflict'), 'danger']
      : item.state === 'rejected'
        ? [t('operator.queue.state.refused'), 'danger']
        : item.attempts > 0
          ? [t('operator.queue.state.sent'), 'warning']
          : [t('operator.queue.state.waiting'), 'warning'];
  return (
    <Card heading={t('operator.queue.title')} class="queue-states">
      <ul class="queue-list">
        {waiting.map((item) => {
          const [text, tone] = stateOf(item);
          return (
            <li
              key={item.id}
              data-item={item.id}
              data-state={item.state === 'pending' ? (item.attempts > 0 ? 'sent' : 'waiting') : item.state}
            >
              {itemLabel(t, item, steps)} <Badge tone={tone}>{text}</Badge>
            </li>
          );
        })}
        {view.lost.map(({ key, item, error }) => (
          <li key={`lost-${key}`} data-state="lost">
            {itemLabel(t, item, steps)} <Badge tone="danger">{t('operator.queue.state.lost')}</Badge>{' '}
            {t('operator.queue.lostWhy', { message: errorText(error) })}{' '}
            <Button variant="ghost" onClick={() => void discardSetAside(user, key)}>
              {t('operator.queue.discardSetAside')}
            </Button>
          </li>
        ))}
        {view.setAside.map(({ key, item, at }) => {
          const step = steps.find((st) => st.stepId === item.stepId);
          const values = item.values
            .map((v) =>
              valueText(
                t,
                format,
                step?.fields.find((f) => f.key === v.key),
                v.value,
              ),
            )
            .join(', ');
          return (
            <li key={`aside-${key}`} data-state="set-aside">
              {itemLabel(t, item, steps)}: {values || t('operator.conflict.empty')}{' '}
              <Badge tone="neutral">{t('operator.queue.state.setAside', { date: formatDate(at, true) })}</Badge>{' '}
              <Button variant="ghost" onClick={() => void discardSetAside(user, key)}>
                {t('operator.queue.discardSetAside')}
              </Button>
            </li>
          );
        })}
        {confirmed.map((a) => (
          <li key={a.id} data-item={a.id} data-state="confirmed">
            {itemLabel(t, a.item, steps)}{' '}
            <Badge tone="success">{t('operator.queue.state.confirmed', { date: formatDate(a.acknowledgedAt, true) })}</Badge>
          </li>
        ))}
      </ul>
    </Card>
  );
}

import { graphql } from '../../api/client';
import { useI18n } from '../../i18n';
import { Badge, Card, EmptyState, ErrorNotice, Loading, PageHeader, useAsync } from '../../ui';
import { actedBy, QUEUE, type QueueItem } from './queries';
import { waitedFor, waitedMinutes } from './time';

/**
 * /app/reviews: what waits for me — versions in review I may approve (or
 * reject), approved versions I may publish — the longest-waiting first, each
 * with how long it has waited. The server's reviewQueue decides what is mine
 * (roles, separation of duties, the templates I may see).
 */
export default function ReviewQueuePage() {
  const { t } = useI18n();
  const [state] = useAsync(() => graphql<{ reviewQueue: { nodes: QueueItem[] } }>(QUEUE), []);
  return (
    <div class="review-queue">
      <PageHeader title={t('review.queue.title')} subtitle={t('review.queue.subtitle')} />
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <ErrorNotice error={state.error} />}
      {state.status === 'done' && <QueueLists items={state.value.reviewQueue.nodes} />}
    </div>
  );
}

function QueueLists({ items }: { items: QueueItem[] }) {
  const { t } = useI18n();
  const now = new Date();
  const byWait = (a: QueueItem, b: QueueItem) => waitedMinutes(b.waitingSince, now) - waitedMinutes(a.waitingSince, now);
  const toApprove = items.filter((item) => item.state === 'IN_REVIEW').sort(byWait);
  const toPublish = items.filter((item) => item.state === 'APPROVED').sort(byWait);
  if (items.length === 0) {
    return <EmptyState title={t('review.queue.empty.title')}>{t('review.queue.empty.text')}</EmptyState>;
  }
  return (
    <div class="review-queue-lists">
      {toApprove.length > 0 && <QueueList heading={t('review.queue.toApprove', { n: toApprove.length })} items={toApprove} now={now} />}
      {toPublish.length > 0 && <QueueList heading={t('review.queue.toPublish', { n: toPublish.length })} items={toPublish} now={now} />}
    </div>
  );
}

function QueueList({ heading, items, now }: { heading: string; items: QueueItem[]; now: Date }) {
  const { t, language, formatDate } = useI18n();
  return (
    <Card heading={heading} aria-label={heading}>
      <ul class="review-list">
        {items.map((item) => {
          // who brought it here: the approver of an approved version, not its author
          const by = actedBy(item);
          return (
            <li key={item.id} class="review-item">
              <a class="review-item-link" href={`/app/reviews/${item.databaseId}`}>
                {t('review.queue.item', { title: item.template.title, number: item.number })}
              </a>
              <div class="review-item-meta">
                <Badge tone={item.state === 'IN_REVIEW' ? 'info' : 'success'}>{t(`review.state.${item.state}`)}</Badge>
                {item.waitingSince && (
                  <span>
                    {t(`review.queue.since.${item.state}`)}{' '}
                    <time dateTime={item.waitingSince} title={formatDate(item.waitingSince, true)}>
                      {waitedFor(item.waitingSince, now, language)}
                    </time>
                  </span>
                )}
                {by && <span>{t(by.by === 'APPROVED' ? 'review.queue.approvedBy' : 'review.queue.editedBy', { name: by.name })}</span>}
              </div>
            </li>
          );
        })}
      </ul>
    </Card>
  );
}

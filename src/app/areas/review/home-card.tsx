import { graphql } from '../../api/client';
import { useI18n } from '../../i18n';
import { Card, LinkButton, useAsync } from '../../ui';

/** The home page's card: how many versions wait for my approval and how many for my publishing. */
export function ReviewHomeCard() {
  const { t } = useI18n();
  const [state] = useAsync(
    () =>
      graphql<{ toApprove: { totalCount: number }; toPublish: { totalCount: number } }>(`
        query ReviewHome {
          toApprove: reviewQueue(action: APPROVE, first: 1) {
            totalCount
          }
          toPublish: reviewQueue(action: PUBLISH, first: 1) {
            totalCount
          }
        }
      `),
    [],
  );
  return (
    <Card heading={t('review.home.title')} aria-label={t('review.home.title')}>
      {state.status === 'done' && (
        <p>{t('review.home.counts', { approve: state.value.toApprove.totalCount, publish: state.value.toPublish.totalCount })}</p>
      )}
      <LinkButton href="/app/reviews" variant="primary">
        {t('review.home.open')}
      </LinkButton>
    </Card>
  );
}

import { graphql } from '../../api/client';
import { useI18n, type Translate } from '../../i18n';
import { Badge, Card, ErrorNotice, Loading, PageHeader, useAsync } from '../../ui';
import { personName, TEMPLATE, type ReviewTemplate, type TemplateVersionRow } from './queries';

import { STATE_TONE } from './version-page';

/**
 * /app/templates/:id for approvers and publishers who are no authors: the template read-only — its
 * versions, each with its state, who brought it there (the approver or publisher by name, else the last editor) and
 * a link to its review page, where its steps are shown as operators see them and compared with the published one.
 * Editing stays the authors' page (author/TemplatePage.tsx), which an author who also reviews gets at this path.
 */
async function load(id: string): Promise<ReviewTemplate> {
  const answer = await graphql<{ template: ReviewTemplate | null }>(TEMPLATE, { id: `Template:${Number(id)}` });
  if (!answer.template) throw new Error('not found');
  return answer.template;
}

/** Who did what to a version: its last editor, then each approval and publication by the signer's name. */
function who(t: Translate, v: TemplateVersionRow): string[] {
  const signed = v.signatures
    .filter((s) => s.meaning !== 'REJECTED')
    .map((s) => t(s.meaning === 'APPROVED' ? 'review.version.approvedBy' : 'review.version.publishedBy', { name: s.signerName }));
  return [...(v.updatedBy ? [t('review.version.by', { name: personName(v.updatedBy) })] : []), ...signed];
}

export default function ReviewTemplatePage({ id }: { id: string }) {
  const { t, formatDate } = useI18n();
  const [state] = useAsync(() => load(id), [id]);
  if (state.status === 'loading') return <Loading />;
  if (state.status === 'error')
    return (
      <div>
        <PageHeader title={t('review.template.notFound')} />
        <ErrorNotice error={state.error} />
        <p>
          <a href="/app/reviews">{t('review.version.back')}</a>
        </p>
      </div>
    );
  const template = state.value;
  const heading = t('review.template.versions');
  return (
    <div class="review-template">
      <PageHeader title={template.title} subtitle={template.description || undefined} />
      <p class="hint">{t('review.template.readOnly')}</p>
      <Card heading={heading} aria-label={heading}>
        <ul class="review-list review-versions">
          {[...template.versions.nodes].reverse().map((v) => (
            <li key={v.databaseId} class="review-item">
              <a class="review-item-link" href={`/app/reviews/${v.databaseId}`}>
                {t('review.template.open', { number: v.number })}
              </a>
              <div class="review-item-meta">
                <Badge tone={STATE_TONE[v.state]}>{t(`review.state.${v.state}`)}</Badge>
                {who(t, v).map((line) => (
                  <span key={line}>{line}</span>
                ))}
                <span>
                  {t('review.template.when')}: <time dateTime={v.updatedAt}>{formatDate(v.updatedAt, true)}</time>
                </span>
              </div>
            </li>
          ))}
        </ul>
      </Card>
      <p>
        <a href="/app/reviews">{t('review.version.back')}</a>
      </p>
    </div>
  );
}

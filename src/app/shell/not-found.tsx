import { useT } from '../i18n';
import { EmptyState, LinkButton, PageHeader } from '../ui';

export function NotFound() {
  const t = useT();
  return (
    <>
      <PageHeader title={t('shell.notFound.title')} />
      <EmptyState title={t('shell.notFound.body')} action={<LinkButton href="/app/">{t('shell.nav.home')}</LinkButton>} />
    </>
  );
}

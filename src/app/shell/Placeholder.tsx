import { useT } from '../i18n';
import { EmptyState, PageHeader } from '../ui';

/** A page of an area not built yet (the skeleton's placeholders; each area's owner replaces them). */
export function placeholderPage(titleKey: string) {
  return function Placeholder() {
    const t = useT();
    return (
      <>
        <PageHeader title={t(titleKey)} />
        <EmptyState title={t('shell.placeholder.title')}>{t('shell.placeholder.body')}</EmptyState>
      </>
    );
  };
}

import { useT } from '../i18n';
import { Card, EmptyState, Icon, PageHeader } from '../ui';
import { areasFor, navOf } from './areas';
import { useSession } from './session-context';

/** /app/: what waits for me, by role — each of the user's areas shows its card (or its links, until it has one). */
export function Home() {
  const t = useT();
  const { session } = useSession();
  // an area with neither a card nor links (the job record: reached through links) has nothing to show here
  const areas = areasFor(session.user).filter((area) => area.Home || navOf(area, session.user).length > 0);
  return (
    <>
      <PageHeader title={t('shell.home.title', { name: session.user.name })} subtitle={session.branding.displayName} />
      {areas.length === 0 && <EmptyState title={t('shell.home.nothing')}>{t('shell.home.nothingBody')}</EmptyState>}
      <div class="card-grid">
        {areas.map((area) =>
          area.Home ? (
            <area.Home key={area.id} />
          ) : (
            <Card key={area.id} heading={t(`shell.area.${area.id}`)}>
              <ul class="link-list">
                {navOf(area, session.user).map((item) => (
                  <li key={item.href}>
                    <a href={item.href}>
                      {item.icon && <Icon name={item.icon} />}
                      {t(item.label)}
                    </a>
                  </li>
                ))}
              </ul>
            </Card>
          ),
        )}
      </div>
    </>
  );
}

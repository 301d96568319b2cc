import { can } from '../../api/session';
import type { Area } from '../../shell/area';
import { placeholderPage } from '../../shell/Placeholder';

// app-author replaces this placeholder: the template library and the editor.
export const area: Area = {
  id: 'author',
  visibleTo: can.author,
  nav: [{ href: '/app/templates', label: 'shell.nav.templates', icon: 'templates' }],
  routes: [
    { path: '/app/templates', component: placeholderPage('shell.nav.templates'), title: 'shell.nav.templates' },
    { path: '/app/templates/:id', component: placeholderPage('shell.nav.templates'), title: 'shell.nav.templates' },
    { path: '/app/templates/:id/edit', component: placeholderPage('shell.nav.templates'), title: 'shell.nav.templates' },
  ],
};

import { can } from '../../api/session';
import type { Area } from '../../shell/area';
import { placeholderPage } from '../../shell/Placeholder';

// app-review replaces this placeholder: the review queue, the diff, e-signatures, publish.
export const area: Area = {
  id: 'review',
  visibleTo: can.review,
  nav: [{ href: '/app/reviews', label: 'shell.nav.reviews', icon: 'review' }],
  routes: [
    { path: '/app/reviews', component: placeholderPage('shell.nav.reviews'), title: 'shell.nav.reviews' },
    { path: '/app/reviews/:versionId', component: placeholderPage('shell.nav.reviews'), title: 'shell.nav.reviews' },
  ],
};

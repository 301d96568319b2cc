import { lazy } from 'preact-iso';
import { can } from '../../api/session';
import type { Area } from '../../shell/area';
import { ReviewHomeCard } from './home-card';
import './review.css';

/**
 * The approvers' and publishers' pages: the review queue and one
 * version's review — its diff against the published version, the signed
 * approve / reject / publish, and the jobs still on older versions — and the
 * review by exception of completed jobs (their deviations, signed REVIEWED).
 */
export const area: Area = {
  id: 'review',
  visibleTo: can.review,
  nav: [
    { href: '/app/reviews', label: 'review.nav.queue', icon: 'review' },
    // publishers see the review queue, but only approvers acknowledge deviations and sign jobs reviewed
    { href: '/app/exceptions', label: 'review.nav.exceptions', icon: 'deviations', visibleTo: can.reviewJobs },
  ],
  routes: [
    { path: '/app/reviews', component: lazy(() => import('./queue-page')), title: 'review.queue.title' },
    { path: '/app/reviews/:versionId', component: lazy(() => import('./version-page')), title: 'review.version.title' },
    // a template read-only, for reviewers who are no authors (an author's own page comes first: shell/areas.ts)
    { path: '/app/templates/:id', component: lazy(() => import('./template-page')), title: 'review.template.title' },
    { path: '/app/exceptions', component: lazy(() => import('./exceptions-page')), title: 'review.exceptions.title' },
  ],
  Home: ReviewHomeCard,
};

import '../../rules/rules.css';
import './jobs.css';
import { lazy } from 'preact-iso';
import type { Area } from '../../shell/area';

/**
 * A job's record, read-only: every step with its values, limits,
 * comments, photos and sign-offs, the faults, deviations and review, the
 * times and the version it ran. Every user of the client reads the client's
 * jobs (the server decides, src/services/jobs.ts getJob), so the page is there
 * for every role; it shows what the server answers, and says so when it
 * answers nothing. No navigation entry: the board, deviations and review link
 * to it (paths.ts).
 */
export const area: Area = {
  id: 'jobs',
  visibleTo: () => true,
  nav: [],
  routes: [{ path: '/app/jobs/:id/record', component: lazy(() => import('./job-record-page')), title: 'jobs.record.title' }],
};

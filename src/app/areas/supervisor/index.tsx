import './supervisor.css';
import { lazy } from 'preact-iso';
import { can } from '../../api/session';
import type { Area } from '../../shell/area';
import { SupervisorHome } from './Home';

// The supervisor's pages (app-shell): the board of open jobs, a new job from a published template, deviations.
export const area: Area = {
  id: 'supervisor',
  visibleTo: can.createJobs,
  nav: [
    { href: '/app/board', label: 'supervisor.nav.board', icon: 'board' },
    { href: '/app/jobs/new', label: 'supervisor.nav.newJob', icon: 'plus' },
    { href: '/app/deviations', label: 'supervisor.nav.deviations', icon: 'deviations' },
  ],
  routes: [
    { path: '/app/board', component: lazy(() => import('./BoardPage')), title: 'supervisor.board.title' },
    { path: '/app/jobs/new', component: lazy(() => import('./NewJobPage')), title: 'supervisor.newJob.title' },
    { path: '/app/deviations', component: lazy(() => import('./DeviationsPage')), title: 'supervisor.deviations.title' },
  ],
  Home: SupervisorHome,
};

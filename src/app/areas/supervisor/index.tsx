import './supervisor.css';
import { lazy } from 'preact-iso';
import { can } from '../../api/session';
import type { Area } from '../../shell/area';
import { SupervisorHome } from './home';

// The supervisor's pages (app-shell): the board of open jobs, a new job from a published template, deviations (with
// follow-up jobs of open faults), the schedules of recurring jobs.
export const area: Area = {
  id: 'supervisor',
  visibleTo: can.createJobs,
  nav: [
    { href: '/app/board', label: 'supervisor.nav.board', icon: 'board' },
    { href: '/app/jobs/new', label: 'supervisor.nav.newJob', icon: 'plus' },
    { href: '/app/deviations', label: 'supervisor.nav.deviations', icon: 'deviations' },
    { href: '/app/schedules', label: 'supervisor.nav.schedules', icon: 'schedules' },
  ],
  routes: [
    { path: '/app/board', component: lazy(() => import('./board-page')), title: 'supervisor.board.title' },
    { path: '/app/jobs/new', component: lazy(() => import('./new-job-page')), title: 'supervisor.newJob.title' },
    { path: '/app/deviations', component: lazy(() => import('./deviations-page')), title: 'supervisor.deviations.title' },
    { path: '/app/schedules', component: lazy(() => import('./schedules-page')), title: 'supervisor.schedules.title' },
    { path: '/app/schedules/new', component: lazy(() => import('./schedule-form-page')), title: 'supervisor.scheduleForm.newTitle' },
    { path: '/app/schedules/:id', component: lazy(() => import('./schedule-page')), title: 'supervisor.schedule.title' },
    { path: '/app/schedules/:id/edit', component: lazy(() => import('./schedule-form-page')), title: 'supervisor.scheduleForm.editTitle' },
    { path: '/app/faults/:id/follow-up', component: lazy(() => import('./follow-up-page')), title: 'supervisor.followUp.title' },
  ],
  Home: SupervisorHome,
};

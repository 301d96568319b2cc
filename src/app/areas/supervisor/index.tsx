import './supervisor.css';
import { lazy } from 'preact-iso';
import { can } from '../../api/session';
import type { Area } from '../../shell/area';
import { SupervisorHome } from './Home';

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
    { path: '/app/board', component: lazy(() => import('./BoardPage')), title: 'supervisor.board.title' },
    { path: '/app/jobs/new', component: lazy(() => import('./NewJobPage')), title: 'supervisor.newJob.title' },
    { path: '/app/deviations', component: lazy(() => import('./DeviationsPage')), title: 'supervisor.deviations.title' },
    { path: '/app/schedules', component: lazy(() => import('./SchedulesPage')), title: 'supervisor.schedules.title' },
    { path: '/app/schedules/new', component: lazy(() => import('./ScheduleFormPage')), title: 'supervisor.scheduleForm.newTitle' },
    { path: '/app/schedules/:id', component: lazy(() => import('./SchedulePage')), title: 'supervisor.schedule.title' },
    { path: '/app/schedules/:id/edit', component: lazy(() => import('./ScheduleFormPage')), title: 'supervisor.scheduleForm.editTitle' },
    { path: '/app/faults/:id/follow-up', component: lazy(() => import('./FollowUpPage')), title: 'supervisor.followUp.title' },
  ],
  Home: SupervisorHome,
};

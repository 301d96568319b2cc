import { can } from '../../api/session';
import type { Area } from '../../shell/area';
import { placeholderPage } from '../../shell/Placeholder';

// app-operator replaces this placeholder: my jobs, scan, run a job (offline).
export const area: Area = {
  id: 'operator',
  visibleTo: can.runJobs,
  nav: [
    { href: '/app/jobs', label: 'shell.nav.jobs', icon: 'jobs' },
    { href: '/app/scan', label: 'shell.nav.scan', icon: 'scan' },
  ],
  routes: [
    { path: '/app/jobs', component: placeholderPage('shell.nav.jobs'), title: 'shell.nav.jobs' },
    { path: '/app/jobs/:id', component: placeholderPage('shell.nav.jobs'), title: 'shell.nav.jobs' },
    { path: '/app/jobs/:id/run', component: placeholderPage('shell.nav.jobs'), title: 'shell.nav.jobs' },
    { path: '/app/scan', component: placeholderPage('shell.nav.scan'), title: 'shell.nav.scan' },
  ],
};

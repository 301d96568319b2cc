import './qualifications.css';
import { lazy } from 'preact-iso';
import { can } from '../../api/session';
import type { Area } from '../../shell/area';

/**
 * Qualifications in the app: the skill matrix — users × skills with
 * level and expiry — for those who may read it (PERMISSIONS
 * .readQualifications), where those who may grant skills grant and revoke them
 * with their signature as trainer, and the recent overrides. Overriding for one
 * job is on that job's record page (src/app/areas/jobs).
 */
export const area: Area = {
  id: 'qualifications',
  visibleTo: can.readQualifications,
  nav: [{ href: '/app/skills', label: 'qualifications.nav.skills', icon: 'skills' }],
  routes: [{ path: '/app/skills', component: lazy(() => import('./skill-matrix-page')), title: 'qualifications.matrix.title' }],
};

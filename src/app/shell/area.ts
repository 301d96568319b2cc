import type { ComponentType } from 'preact';
import type { CurrentUser } from '../api/session';

/**
 * The export shape of an area (src/app/areas/<area>/index.tsx): its pages,
 * its entries in the navigation and its card on the home page. The shell
 * (src/app/shell/routes.tsx) imports the four areas and mounts what the
 * signed-in user may see.
 *
 *   export const area: Area = {
 *     id: 'operator',
 *     visibleTo: can.runJobs,
 *     nav: [{ href: '/app/jobs', label: 'operator.nav.jobs', icon: 'jobs' }],
 *     routes: [
 *       { path: '/app/jobs', component: lazy(() => import('./jobs-page')), title: 'operator.jobs.title' },
 *       { path: '/app/jobs/:id/run', component: lazy(() => import('./run-page')), title: 'operator.run.title' },
 *     ],
 *     Home: OperatorHomeCard,
 *   };
 *
 * A route's component gets the path's parameters as props (preact-iso:
 * `/app/jobs/:id` → props.id; ?q= → props.query.q) and the session from
 * useSession(). `lazy` (preact-iso) puts a page in its own file, loaded when
 * first shown (and precached by the service worker).
 */
export interface AreaRoute {
  /** the full path under /app/, a preact-iso pattern: '/app/jobs/:id' */
  path: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each page takes its own path's parameters as props
  component: ComponentType<any>;
  /** text key of the page's title (the document title; the shell announces it on navigation) */
  title: string;
}

export interface NavItem {
  href: string;
  /** text key of the link */
  label: string;
  /** an icon of src/app/ui/icon.tsx */
  icon?: string;
  /** narrower than its area: shown only to those who may use the page (default: everyone the area is for) */
  visibleTo?(user: CurrentUser): boolean;
}

export type AreaId = 'author' | 'review' | 'operator' | 'supervisor' | 'verify' | 'jobs' | 'qualifications';

export interface Area {
  id: AreaId;
  /** whether the user's roles give them this area (navigation, home card, routes) */
  visibleTo(user: CurrentUser): boolean;
  nav: NavItem[];
  routes: AreaRoute[];
  /** a card on the home page: what waits for this user in the area */
  Home?: ComponentType;
}

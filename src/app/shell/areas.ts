import type { CurrentUser } from '../api/session';
import type { Area, NavItem } from './area';
import { area as supervisor } from '../areas/supervisor';
import { area as author } from '../areas/author';
import { area as review } from '../areas/review';
import { area as operator } from '../areas/operator';
import { area as verify } from '../areas/verify';
import { area as jobs } from '../areas/jobs';
import { area as qualifications } from '../areas/qualifications';

/**
 * Every area of the app, in the order of the navigation. The supervisor's
 * come before the operator's routes: /app/jobs/new is the supervisor's page,
 * not the operator's job "new" (the router takes the first match).
 */
export const AREAS: readonly Area[] = [operator, supervisor, author, review, verify, qualifications, jobs];

/**
 * Routes in matching order (see AREAS). A path two areas offer (a template's page: the author's, and the reviewers'
 * read-only one) is the first area's: an author who also reviews gets the author's page.
 */
export function routesOf(areas: readonly Area[]) {
  const routes = [...areas].sort((a, b) => (a.id === 'supervisor' ? -1 : b.id === 'supervisor' ? 1 : 0)).flatMap((area) => area.routes);
  return routes.filter((route, i) => routes.findIndex((r) => r.path === route.path) === i);
}

export function areasFor(user: CurrentUser): Area[] {
  return AREAS.filter((area) => area.visibleTo(user));
}

export const HOME: NavItem = { href: '/app/', label: 'shell.nav.home', icon: 'home' };

export function navFor(user: CurrentUser): NavItem[] {
  return [HOME, ...areasFor(user).flatMap((area) => navOf(area, user))];
}

/** An area's navigation entries the user may use (an entry may be narrower than its area). */
export function navOf(area: Area, user: CurrentUser): NavItem[] {
  return area.nav.filter((item) => item.visibleTo?.(user) ?? true);
}

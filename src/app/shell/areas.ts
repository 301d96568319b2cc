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

/** Routes in matching order (see AREAS). */
export function routesOf(areas: readonly Area[]) {
  return [...areas].sort((a, b) => (a.id === 'supervisor' ? -1 : b.id === 'supervisor' ? 1 : 0)).flatMap((area) => area.routes);
}

export function areasFor(user: CurrentUser): Area[] {
  return AREAS.filter((area) => area.visibleTo(user));
}

export const HOME: NavItem = { href: '/app/', label: 'shell.nav.home', icon: 'home' };

export function navFor(user: CurrentUser): NavItem[] {
  return [HOME, ...areasFor(user).flatMap((area) => area.nav)];
}

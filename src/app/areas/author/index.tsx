import { lazy } from 'preact-iso';
import { can } from '../../api/session';
import type { Area } from '../../shell/area';
import './author.css';

/**
 * The authors' area: the template library, a template, and the
 * draft editor with autosave, media uploads, reordering and the operator
 * preview. Each page is its own file, loaded when first opened.
 */
export const area: Area = {
  id: 'author',
  visibleTo: can.author,
  nav: [{ href: '/app/templates', label: 'shell.nav.templates', icon: 'templates' }],
  routes: [
    { path: '/app/templates', component: lazy(() => import('./library-page')), title: 'author.library.heading' },
    { path: '/app/templates/:id', component: lazy(() => import('./template-page')), title: 'author.template.heading' },
    { path: '/app/templates/:id/edit', component: lazy(() => import('./editor-page')), title: 'author.editor.heading' },
  ],
};

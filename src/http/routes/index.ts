import type { RouteSpec } from '../route';
import { clientAuthRoutes } from './client/auth';
import { adminAuthRoutes } from './admin/auth';
import { adminClientRoutes } from './admin/client';
import { adminLicenseRoutes } from './admin/license';
import { adminUserRoutes } from './admin/user';
import { opsRoutes } from './ops';

/** Every REST route of the product, by area (SPEC.md section 4), and the operations endpoints (/healthz, /readyz, /metrics). */
export const allRoutes: RouteSpec[] = [
  ...clientAuthRoutes,
  ...adminAuthRoutes,
  ...adminClientRoutes,
  ...adminUserRoutes,
  ...adminLicenseRoutes,
  ...opsRoutes,
];

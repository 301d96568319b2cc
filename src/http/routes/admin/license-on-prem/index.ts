import { defineRoute, type RouteSpec } from '../../../route';
import { installLicense, licenseOverview } from '../../../../services/licensing';
import { presentLicenseOverview } from '../../../../presenters/licensing';
import { InstallLicenseKey } from './schema';

export const adminLicenseOnPremRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/license-on-prem',
    summary: "The installed license key's terms (or the evaluation allowance), its status and days to expiry, and usage against it",
    auth: 'admin',
    async handler({ deps }) {
      return presentLicenseOverview(await licenseOverview(deps));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/license-on-prem',
    summary: 'Validate and install a license key; an invalid key is refused (422 LICENSE_INVALID) and the previous one kept',
    auth: 'admin',
    body: InstallLicenseKey,
    async handler({ deps, body, actor, meta }) {
      return presentLicenseOverview(await installLicense(deps, body.licenseKey, { adminId: actor.adminId }, meta));
    },
  }),
];

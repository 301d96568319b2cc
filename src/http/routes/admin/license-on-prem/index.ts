import { z } from 'zod';
import { LicenseOverview } from '#presenters/schemas';
import { defineRoute, type RouteSpec } from '../../../route';
import { installLicense, licenseOverview, previewLicense } from '#services/licensing/index';
import { presentLicenseOverview } from '#presenters/licensing';
import { changedBy } from '#services/security-log';
import { InstallLicenseKey } from './schema';

export const adminLicenseOnPremRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/license-on-prem',
    operationId: 'getOnPremLicense',
    response: LicenseOverview,
    summary: "The installed license key's terms (or the evaluation allowance), its status and days to expiry, and usage against it",
    auth: 'admin',
    async handler({ deps }) {
      return presentLicenseOverview(await licenseOverview(deps));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/license-on-prem',
    operationId: 'installOnPremLicense',
    response: LicenseOverview,
    errors: ['LICENSE_INVALID'],
    summary: 'Validate and install a license key; an invalid key is refused (422 LICENSE_INVALID) and the previous one kept',
    auth: 'admin',
    body: InstallLicenseKey,
    async handler({ deps, body, actor, meta }) {
      return presentLicenseOverview(await installLicense(deps, body.licenseKey, changedBy(actor, meta)));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/license-on-prem/preview',
    operationId: 'previewOnPremLicense',
    response: z.object({
      licenseId: z.string().nullable(),
      licensee: z.object({ name: z.string(), email: z.string().optional() }).nullable(),
      issuedAt: z.string().nullable(),
      expiresAt: z.string().nullable(),
      boundToInstallation: z.string().nullable(),
      seats: z.record(z.string(), z.number()),
      maxClients: z.number(),
      features: z.array(z.string()),
    }),
    errors: ['LICENSE_INVALID'],
    summary:
      'The terms a license key would install (checked as installing checks them), without installing it; 422 LICENSE_INVALID as for installing',
    auth: 'admin',
    body: InstallLicenseKey,
    async handler({ deps, body }) {
      const t = await previewLicense(deps, body.licenseKey);
      return {
        licenseId: t.licenseId,
        licensee: t.licensee,
        issuedAt: t.issuedAt,
        expiresAt: t.expiresAt,
        boundToInstallation: t.installationId,
        seats: t.seats,
        maxClients: t.maxClients,
        features: t.features,
      };
    },
  }),
];

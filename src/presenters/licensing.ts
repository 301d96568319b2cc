import type { ClientLicense, CurrentLicense, LicenseOverview } from '#licensing/state';

// License state → API shape. The installation id is shown to system
// administrators only (a vendor binds keys to it).

function presentTerms(license: CurrentLicense) {
  const t = license.terms;
  return {
    evaluation: license.evaluation,
    status: license.status,
    grace: license.status === 'grace',
    readOnly: license.readOnly,
    warning: license.warning,
    clockRollback: license.clockRollback,
    expiresAt: t.expiresAt,
    daysToExpiry: license.daysToExpiry,
    readOnlyAt: license.readOnlyAt,
    features: t.features,
  };
}

export function presentLicenseOverview(overview: LicenseOverview) {
  const { license } = overview;
  return {
    ...presentTerms(license),
    licenseId: license.terms.licenseId,
    licensee: license.terms.licensee,
    issuedAt: license.terms.issuedAt,
    installedAt: license.installedAt,
    boundToInstallation: license.terms.installationId,
    installationId: license.installationId,
    problem: license.problem,
    terms: { seats: license.terms.seats, maxClients: license.terms.maxClients },
    usage: overview.usage,
  };
}

export function presentClientLicense(value: ClientLicense) {
  return { ...presentTerms(value.license), seats: value.seats };
}

/** GET /api/client/on-premise: what any caller may know; more for a signed-in one. */
export function presentOnPremise(license: CurrentLicense, version: string, signedIn: boolean) {
  return {
    onPremise: true,
    version,
    evaluation: license.evaluation,
    ...(signedIn && {
      status: license.status,
      readOnly: license.readOnly,
      licensee: license.terms.licensee?.name ?? null,
      expiresAt: license.terms.expiresAt,
      features: license.terms.features,
    }),
  };
}

import type { LazyRoute, RouteSpec } from '../route';
import { ROUTE_MANIFEST, type RouteGroup } from './manifest';

/**
 * Every REST route of the product by group (docs/api/contract.md section 4), and the
 * operations endpoints (/healthz, /readyz, /metrics), in mounting order. A
 * group's module — its handlers, zod schemas and the services behind them —
 * is loaded when one of its routes is first requested: evaluating all of them
 * was the largest part of the daemon's start. The router still knows every
 * route from the start (404, 405 with Allow, the fixed-path shortcut): each
 * route's method and path come from ROUTE_MANIFEST, generated from these groups
 * (`npm run routes:manifest`; test/http/route-manifest.test.ts fails when it is stale).
 */
export const ROUTE_GROUPS = {
  clientAuth: () => (require('./client/auth') as typeof import('./client/auth')).clientAuthRoutes,
  clientSso: () => (require('./client/sso') as typeof import('./client/sso')).clientSsoRoutes,
  adminAuth: () => (require('./admin/auth') as typeof import('./admin/auth')).adminAuthRoutes,
  adminClient: () => (require('./admin/client') as typeof import('./admin/client')).adminClientRoutes,
  adminSso: () => (require('./admin/sso') as typeof import('./admin/sso')).adminSsoRoutes,
  adminUser: () => (require('./admin/user') as typeof import('./admin/user')).adminUserRoutes,
  adminLicense: () => (require('./admin/license') as typeof import('./admin/license')).adminLicenseRoutes,
  adminLogs: () => (require('./admin/logs') as typeof import('./admin/logs')).adminLogsRoutes,
  adminBackup: () => (require('./admin/backups') as typeof import('./admin/backups')).adminBackupRoutes,
  adminMail: () => (require('./admin/mail') as typeof import('./admin/mail')).adminMailRoutes,
  adminSystem: () => (require('./admin/system') as typeof import('./admin/system')).adminSystemRoutes,
  clientAccount: () => (require('./client/account') as typeof import('./client/account')).clientAccountRoutes,
  clientTwoFactor: () => (require('./client/two-factor') as typeof import('./client/two-factor')).clientTwoFactorRoutes,
  adminSecurity: () => (require('./admin/security') as typeof import('./admin/security')).adminSecurityRoutes,
  adminLicenseOnPrem: () => (require('./admin/license-on-prem') as typeof import('./admin/license-on-prem')).adminLicenseOnPremRoutes,
  adminAgreement: () => (require('./admin/agreement') as typeof import('./admin/agreement')).adminAgreementRoutes,
  clientLicense: () => (require('./client/license') as typeof import('./client/license')).clientLicenseRoutes,
  clientAgreement: () => (require('./client/agreement') as typeof import('./client/agreement')).clientAgreementRoutes,
  clientInfo: () => (require('./client/info') as typeof import('./client/info')).clientInfoRoutes,
  clientGraphql: () => (require('./client/graphql') as typeof import('./client/graphql')).clientGraphqlRoutes,
  clientSensor: () => (require('./client/sensors') as typeof import('./client/sensors')).clientSensorRoutes,
  clientEditorial: () => (require('./client/editorial') as typeof import('./client/editorial')).clientEditorialRoutes,
  clientTutorial: () => (require('./client/tutorials') as typeof import('./client/tutorials')).clientTutorialRoutes,
  clientSupervision: () => (require('./client/supervision') as typeof import('./client/supervision')).clientSupervisionRoutes,
  clientSync: () => (require('./client/sync') as typeof import('./client/sync')).clientSyncRoutes,
  clientWorkingTogether: () =>
    (require('./client/working-together') as typeof import('./client/working-together')).clientWorkingTogetherRoutes,
  clientReport: () => (require('./client/reports') as typeof import('./client/reports')).clientReportRoutes,
  adminActivityReport: () => (require('./admin/activity-report') as typeof import('./admin/activity-report')).adminActivityReportRoutes,
  clientPush: () => (require('./client/push') as typeof import('./client/push')).clientPushRoutes,
  clientNotification: () => (require('./client/notifications') as typeof import('./client/notifications')).clientNotificationRoutes,
  clientExport: () => (require('./client/exports') as typeof import('./client/exports')).clientExportRoutes,
  clientTranslation: () => (require('./client/translations') as typeof import('./client/translations')).clientTranslationRoutes,
  clientRecord: () => (require('./client/records') as typeof import('./client/records')).clientRecordRoutes,
  clientPlatform: () => (require('./client/platform') as typeof import('./client/platform')).clientPlatformRoutes,
  clientI18n: () => (require('./client/i18n') as typeof import('./client/i18n')).clientI18nRoutes,
  adminInternationalization: () =>
    (require('./admin/internationalization') as typeof import('./admin/internationalization')).adminInternationalizationRoutes,
  clientDiagnostics: () => (require('./client/diagnostics') as typeof import('./client/diagnostics')).clientDiagnosticsRoutes,
  adminBugReport: () => (require('./admin/bug-reports') as typeof import('./admin/bug-reports')).adminBugReportRoutes,
  clientFile: () => (require('./client/files') as typeof import('./client/files')).clientFileRoutes,
  adminUpload: () => (require('./admin/upload') as typeof import('./admin/upload')).adminUploadRoutes,
  clientEvent: () => (require('./client/events') as typeof import('./client/events')).clientEventRoutes,
  adminWebhook: () => (require('./client/events') as typeof import('./client/events')).adminWebhookRoutes,
  clientIntegration: () => (require('./client/integrations') as typeof import('./client/integrations')).clientIntegrationRoutes,
  adminContainerNotification: () =>
    (require('./admin/container-notifications') as typeof import('./admin/container-notifications')).adminContainerNotificationRoutes,
  ops: () => (require('./ops') as typeof import('./ops')).opsRoutes,
  docs: () => (require('./docs') as typeof import('./docs')).docsRoutes,
  console: () => (require('./console') as typeof import('./console')).consoleRoutes,
  app: () => (require('./app') as typeof import('./app')).appRoutes,
} satisfies Record<RouteGroup, () => RouteSpec[]>;

export type { RouteGroup };

/** Every route, each loading its group on first use (see ROUTE_GROUPS). */
export function lazyRoutes(): LazyRoute[] {
  return (Object.keys(ROUTE_GROUPS) as RouteGroup[]).flatMap((group) =>
    ROUTE_MANIFEST[group].map(([method, path], i): LazyRoute => ({
      method,
      path,
      load() {
        const spec = ROUTE_GROUPS[group]()[i];
        if (spec?.method !== method || spec.path !== path)
          throw new Error(`the route manifest is stale at ${method} ${path}: run npm run routes:manifest`);
        return spec;
      },
    })),
  );
}

/** Every route's full declaration: loads every group (the OpenAPI document, tests). */
export function allRoutes(): RouteSpec[] {
  return Object.values(ROUTE_GROUPS).flatMap((load) => load());
}

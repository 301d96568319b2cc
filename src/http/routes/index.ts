import type { RouteSpec } from '../route';
import { clientAuthRoutes } from './client/auth';
import { adminAuthRoutes } from './admin/auth';
import { adminClientRoutes } from './admin/client';
import { adminLicenseRoutes } from './admin/license';
import { adminUserRoutes } from './admin/user';
import { adminLogsRoutes } from './admin/logs';
import { clientAccountRoutes } from './client/account';
import { clientTwoFactorRoutes } from './client/two-factor';
import { adminSecurityRoutes } from './admin/security';
import { adminLicenseOnPremRoutes } from './admin/license-on-prem';
import { adminAgreementRoutes } from './admin/agreement';
import { clientLicenseRoutes } from './client/license';
import { clientAgreementRoutes } from './client/agreement';
import { clientInfoRoutes } from './client/info';
import { opsRoutes } from './ops';
import { clientPushRoutes } from './client/push';
import { docsRoutes } from './docs';
import { consoleRoutes } from './console';
import { clientGraphqlRoutes } from './client/graphql';
import { clientSensorRoutes } from './client/sensors';
import { clientEditorialRoutes } from './client/editorial';
import { clientTutorialRoutes } from './client/tutorials';
import { clientWorkingTogetherRoutes } from './client/working-together';
import { clientReportRoutes } from './client/reports';
import { adminActivityReportRoutes } from './admin/activity-report';
import { clientExportRoutes } from './client/exports';
import { clientPlatformRoutes } from './client/platform';
import { clientI18nRoutes } from './client/i18n';
import { adminInternationalizationRoutes } from './admin/internationalization';
import { clientDiagnosticsRoutes } from './client/diagnostics';
import { adminBugReportRoutes } from './admin/bug-reports';
import { clientFileRoutes } from './client/files';
import { adminUploadRoutes } from './admin/upload';
import { adminWebhookRoutes, clientEventRoutes } from './client/events';
import { clientSsoRoutes } from './client/sso';
import { adminSsoRoutes } from './admin/sso';
import { clientIntegrationRoutes } from './client/integrations';
import { adminContainerNotificationRoutes } from './admin/container-notifications';
import { adminBackupRoutes } from './admin/backups';
import { adminMailRoutes } from './admin/mail';
import { adminSystemRoutes } from './admin/system';

/** Every REST route of the product, by area (SPEC.md section 4), and the operations endpoints (/healthz, /readyz, /metrics). */
export const allRoutes: RouteSpec[] = [
  ...clientAuthRoutes,
  ...clientSsoRoutes,
  ...adminAuthRoutes,
  ...adminClientRoutes,
  ...adminSsoRoutes,
  ...adminUserRoutes,
  ...adminLicenseRoutes,
  ...adminLogsRoutes,
  ...adminBackupRoutes,
  ...adminMailRoutes,
  ...adminSystemRoutes,
  ...clientAccountRoutes,
  ...clientTwoFactorRoutes,
  ...adminSecurityRoutes,
  ...adminLicenseOnPremRoutes,
  ...adminAgreementRoutes,
  ...clientLicenseRoutes,
  ...clientAgreementRoutes,
  ...clientInfoRoutes,
  ...clientGraphqlRoutes,
  ...clientSensorRoutes,
  ...clientEditorialRoutes,
  ...clientTutorialRoutes,
  ...clientWorkingTogetherRoutes,
  ...clientReportRoutes,
  ...adminActivityReportRoutes,
  ...clientPushRoutes,
  ...clientExportRoutes,
  ...clientPlatformRoutes,
  ...clientI18nRoutes,
  ...adminInternationalizationRoutes,
  ...clientDiagnosticsRoutes,
  ...adminBugReportRoutes,
  ...clientFileRoutes,
  ...adminUploadRoutes,
  ...clientEventRoutes,
  ...adminWebhookRoutes,
  ...clientIntegrationRoutes,
  ...adminContainerNotificationRoutes,
  ...opsRoutes,
  ...docsRoutes,
  ...consoleRoutes,
];

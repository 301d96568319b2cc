import { z } from 'zod';
import {
  presentClient,
  presentDelivery,
  presentLicense,
  presentOutboxMessage,
  presentSecuritySettings,
  presentSystemAdmin,
  presentUser,
  presentWebhook,
} from '.';
import { presentAcceptance, presentAgreement, presentAgreementStatus, presentMsaAccepted } from './agreements';
import { presentFile } from './files';
import { presentClientLicense, presentLicenseOverview, presentOnPremise } from './licensing';
import { presentUserReportRow } from './reports';
import { presentContainerNotification } from './container-notifications';
import { presentHandOff, presentJob, presentJobMembers } from './jobs';

/**
 * What the presenters answer, as zod schemas: one per presenter, named (`id`)
 * so the OpenAPI document has one component per shape and generated clients
 * one type. Routes declare them as their `response`; the test suite checks
 * every answer it receives against the document (test/helpers/openapi-exchange.ts),
 * so a presenter and its schema cannot drift apart unnoticed.
 */

const Id = z.number().int();
const Timestamp = z.string().describe('ISO-8601 date-time (UTC)');
const NullableTimestamp = Timestamp.nullable();

/** The one pagination shape: `{items, nextCursor}`. */
export const Page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() });

export const User = z
  .object({
    id: Id,
    clientId: Id,
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    title: z.string(),
    roles: z.array(z.string()),
    licenseType: z.string(),
    availableToOrg: z.array(z.unknown()),
    status: z.string(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'User' });

export const Client = z
  .object({
    id: Id,
    name: z.string(),
    logoFileId: Id.nullable(),
    timeZone: z.string().meta({ description: 'IANA time zone its schedules recur in' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Client' });

export const License = z
  .object({
    id: Id,
    clientId: Id,
    licenseType: z.string(),
    seats: z.number().int(),
    expiresAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'License' });

export const SystemAdmin = z.object({ id: Id, username: z.string(), createdAt: Timestamp }).meta({ id: 'SystemAdmin' });

export const SecuritySettingsPublic = z
  .object({
    passwordPolicy: z.object({ minLength: z.number().int(), blocksCommonPasswords: z.boolean() }),
    twoFactorRequired: z.enum(['off', 'all', 'admins']),
    ssoEnforced: z.boolean(),
  })
  .meta({ id: 'SecuritySettingsPublic' });

export const SecuritySettings = SecuritySettingsPublic.extend({
  sessionIdleTimeout: z.number().nullable(),
  allowedSignUpDomains: z.array(z.string()),
  allowSelfApproval: z.boolean(),
  updatedAt: NullableTimestamp,
}).meta({ id: 'SecuritySettings' });

export const OutboxMessage = z
  .object({
    id: Id,
    kind: z.string(),
    to: z.string(),
    subject: z.string(),
    status: z.string(),
    attempts: z.number().int(),
    nextAttemptAt: NullableTimestamp,
    lastError: z.string().nullable(),
    sentAt: NullableTimestamp,
    createdAt: Timestamp,
    clientId: Id.nullable(),
    userId: Id.nullable(),
  })
  .meta({ id: 'OutboxMessage' });

export const Webhook = z
  .object({
    id: Id,
    url: z.string(),
    description: z.string(),
    events: z.array(z.string()),
    active: z.boolean(),
    disabledReason: z.string().nullable(),
    failingSince: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Webhook' });

export const WebhookDelivery = z
  .object({
    id: Id,
    eventId: z.string(),
    eventType: z.string(),
    status: z.string(),
    attempt: z.number().int(),
    statusCode: z.number().int().nullable(),
    durationMs: z.number().nullable(),
    error: z.string().nullable(),
    attemptedAt: NullableTimestamp,
    nextAttemptAt: NullableTimestamp,
    createdAt: Timestamp,
  })
  .meta({ id: 'WebhookDelivery' });

export const Agreement = z
  .object({
    id: Id,
    kind: z.string(),
    version: z.string(),
    title: z.string(),
    bodyMarkdown: z.string().nullable(),
    hasPdf: z.boolean(),
    fileName: z.string().nullable(),
    fileSize: z.number().int().nullable(),
    effectiveAt: Timestamp,
    requiresReacceptance: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Agreement' });

const AcceptedBy = z.object({ userId: Id, email: z.string() });

export const AgreementAcceptance = z
  .object({
    agreementId: Id,
    version: z.string(),
    acceptedAt: Timestamp,
    acceptedBy: AcceptedBy,
    ip: z.string().nullable().optional(),
    userAgent: z.string().nullable().optional(),
  })
  .meta({ id: 'AgreementAcceptance' });

export const AgreementStatus = z
  .object({ agreement: Agreement.nullable(), accepted: z.boolean(), acceptance: AgreementAcceptance.nullable() })
  .meta({ id: 'AgreementStatus' });

export const MsaAccepted = z
  .object({
    accepted: z.boolean(),
    required: z.boolean(),
    version: z.string().nullable(),
    acceptedVersion: z.string().nullable(),
    acceptedAt: NullableTimestamp,
    acceptedBy: AcceptedBy.nullable(),
  })
  .meta({ id: 'MsaAccepted' });

export const File = z
  .object({
    id: Id,
    name: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    contentType: z.string(),
    description: z.string(),
    createdAt: Timestamp,
    revision: z.number().int().optional(),
    updatedAt: Timestamp.optional(),
    url: z.string().optional(),
  })
  .meta({ id: 'File' });

const LicenseTerms = {
  evaluation: z.boolean(),
  status: z.string(),
  grace: z.boolean(),
  readOnly: z.boolean(),
  warning: z.boolean(),
  clockRollback: z.boolean(),
  expiresAt: NullableTimestamp,
  daysToExpiry: z.number().nullable(),
  readOnlyAt: NullableTimestamp,
  features: z.array(z.string()),
};

export const LicenseOverview = z
  .object({
    ...LicenseTerms,
    licenseId: z.string().nullable(),
    licensee: z.unknown(),
    issuedAt: NullableTimestamp,
    installedAt: NullableTimestamp,
    boundToInstallation: z.string().nullable(),
    installationId: z.string(),
    problem: z.unknown(),
    terms: z.object({ seats: z.unknown(), maxClients: z.number().nullable() }),
    usage: z.unknown(),
  })
  .meta({ id: 'LicenseOverview' });

export const ClientLicense = z.object({ ...LicenseTerms, seats: z.unknown() }).meta({ id: 'ClientLicense' });

export const OnPremise = z
  .object({
    onPremise: z.boolean(),
    version: z.string(),
    evaluation: z.boolean(),
    status: z.string().optional(),
    readOnly: z.boolean().optional(),
    licensee: z.string().nullable().optional(),
    expiresAt: NullableTimestamp.optional(),
    features: z.array(z.string()).optional(),
  })
  .meta({ id: 'OnPremise' });

export const UserReportRow = z
  .object({
    id: Id,
    clientId: Id,
    clientName: z.string(),
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    title: z.string(),
    licenseType: z.string(),
    roles: z.array(z.string()),
    status: z.string(),
    lastSignInAt: NullableTimestamp,
    createdAt: Timestamp,
  })
  .meta({ id: 'UserReportRow' });

/** `{id, deleted: true}`: what a DELETE answers. */
export const Deleted = z.object({ id: z.union([Id, z.string()]), deleted: z.boolean() }).meta({ id: 'Deleted' });

export const BackupFile = z
  .object({ name: z.string(), kind: z.string(), bytes: z.number().int(), createdAt: Timestamp })
  .meta({ id: 'BackupFile' });

export const BackupJob = z
  .object({
    id: Id,
    status: z.enum(['running', 'succeeded', 'failed']),
    phase: z.string().nullable(),
    percent: z.number(),
    startedAt: Timestamp,
    finishedAt: NullableTimestamp,
    startedBy: Id,
    backup: BackupFile.nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'BackupJob' });

export const BugReport = z
  .object({
    id: Id,
    clientId: Id,
    userId: Id,
    kind: z.enum(['app', 'web']),
    description: z.string(),
    appVersion: z.string(),
    device: z.string(),
    platform: z.string(),
    logs: z.string().nullable(),
    attachmentFileIds: z.array(Id),
    createdAt: Timestamp,
  })
  .meta({ id: 'BugReport' });

export const TranslationEntry = z
  .object({
    id: Id,
    clientId: Id.nullable(),
    language: z.string(),
    namespace: z.string(),
    key: z.string(),
    text: z.string(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'TranslationEntry' });

export const StorageUsage = z
  .object({ storageQuotaBytes: z.number().int().nullable(), storageUsedBytes: z.number().int() })
  .meta({ id: 'StorageUsage' });

export const ContainerNotification = z
  .object({
    id: z.string(),
    type: z.string(),
    occurredAt: NullableTimestamp,
    data: z.unknown(),
    authenticatedBy: z.string(),
    receivedAt: Timestamp,
  })
  .meta({ id: 'ContainerNotification' });

export const Unlocked = z.object({ userId: Id, email: z.string(), wasLocked: z.boolean() }).meta({ id: 'Unlocked' });

/**
 * Compile-time: each presenter's answer is a value of its schema (tsc fails here when a presenter gains or
 * changes a field its schema does not allow); the suite's exchange check covers the answers at run time.
 */
function conforms<S extends z.ZodType>(_schema: S, _present: (...args: never[]) => z.input<S>): void {}
conforms(User, presentUser);
conforms(Client, presentClient);
conforms(License, presentLicense);
conforms(SystemAdmin, presentSystemAdmin);
conforms(z.union([SecuritySettings, SecuritySettingsPublic]), presentSecuritySettings);
conforms(OutboxMessage, presentOutboxMessage);
conforms(Webhook, presentWebhook);
conforms(WebhookDelivery, presentDelivery);
conforms(Agreement, presentAgreement);
conforms(AgreementAcceptance, presentAcceptance);
conforms(AgreementStatus, presentAgreementStatus);
conforms(MsaAccepted, presentMsaAccepted);
conforms(File, presentFile);
conforms(LicenseOverview, presentLicenseOverview);
conforms(ClientLicense, presentClientLicense);
conforms(OnPremise, presentOnPremise);
conforms(UserReportRow, presentUserReportRow);
conforms(ContainerNotification, presentContainerNotification);

export const HandOff = z
  .object({
    id: Id,
    jobId: Id,
    fromUserId: Id,
    toUserId: Id,
    status: z.string(),
    note: z.string(),
    createdAt: Timestamp,
    decidedAt: NullableTimestamp,
  })
  .meta({ id: 'HandOff' });
conforms(HandOff, presentHandOff);

/** A job as REST answers it (presentJob). */
export const Job = z
  .object({
    id: Id,
    title: z.string(),
    state: z.enum(['OPEN', 'IN_PROGRESS', 'PAUSED', 'COMPLETED', 'CANCELLED', 'REVIEWED']),
    priority: z.enum(['HIGH', 'MEDIUM', 'LOW']),
    revision: z.number().int(),
    templateId: Id,
    versionId: Id,
    assetId: Id.nullable(),
    dueAt: NullableTimestamp,
    cancelReason: z.string().nullable(),
    createdById: Id,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    startedAt: NullableTimestamp,
    completedAt: NullableTimestamp,
  })
  .meta({ id: 'Job' });
conforms(Job, presentJob);

/** Who works on a job (presentJobMembers). */
const JobMembers = {
  assigneeIds: z.array(Id),
  coworkerIds: z.array(Id),
  stepOwners: z.array(z.object({ stepId: z.string(), userId: Id })),
};
conforms(z.object(JobMembers), presentJobMembers);

/** A job with its members (services/jobs jobWithMembers). */
export const JobWithMembers = Job.extend(JobMembers).meta({ id: 'JobWithMembers' });

/** Where an invitation went (src/services/invitation-links.ts). */
export const InvitationNotice = z
  .object({ delivery: z.enum(['queued', 'outbox']), linkRevealable: z.boolean() })
  .meta({ id: 'InvitationNotice' });
/** A user as created or invited: with `invitation` when no password was set. */
export const UserWithInvitation = User.extend({ invitation: InvitationNotice.optional() }).meta({ id: 'UserWithInvitation' });
/** A user in the list: with the account state the console's actions depend on. */
export const UserWithState = User.extend({
  locked: z.boolean(),
  twoFactorEnabled: z.boolean(),
  lastSecurityAdministrator: z.boolean(),
}).meta({ id: 'UserWithState' });

/** What a translated XLIFF file brought (PUT …/translations/:lang.xlf, src/services/translations.ts). */
export const TranslationImport = z
  .object({
    versionId: Id,
    language: z.string(),
    /** false after every change of the units, until approveTranslation */
    approved: z.boolean(),
    unitsHash: z.string(),
    /** units of the file whose translation changed */
    changed: z.number().int(),
    unchanged: z.number().int(),
    counts: z.object({ translated: z.number().int(), stale: z.number().int(), missing: z.number().int() }),
  })
  .meta({ id: 'TranslationImport' });

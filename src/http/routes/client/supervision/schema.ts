import { z } from 'zod';

/** The answers of the supervisor's routes (src/services/supervision.ts). */
const Id = z.number().int();
const Timestamp = z.string().describe('ISO-8601 date-time (UTC)');
const Named = z.object({ id: Id, name: z.string() });
const JobRef = z.object({ id: Id, title: z.string() });

export const BoardJob = z
  .object({
    id: Id,
    title: z.string(),
    state: z.enum(['OPEN', 'IN_PROGRESS', 'PAUSED', 'COMPLETED', 'CANCELLED', 'REVIEWED']),
    priority: z.enum(['HIGH', 'MEDIUM', 'LOW']),
    revision: z.number().int(),
    dueAt: Timestamp.nullable(),
    createdAt: Timestamp,
    startedAt: Timestamp.nullable(),
    templateId: Id,
    versionId: Id,
    asset: Named.nullable(),
    assignees: z.array(Named),
  })
  .meta({ id: 'BoardJob' });

export const JobBoard = z.object({ jobs: z.array(BoardJob), truncated: z.boolean() }).meta({ id: 'JobBoard' });

export const AssignableUsers = z
  .object({ users: z.array(z.object({ id: Id, name: z.string(), email: z.string(), title: z.string() })), truncated: z.boolean() })
  .meta({ id: 'AssignableUsers' });

const RecordDeviation = {
  job: JobRef,
  asset: Named.nullable(),
  stepId: z.string(),
  stepTitle: z.string(),
  recordedBy: Named,
  recordedAt: Timestamp.meta({ deprecated: true, description: 'receivedAt under its old name (deprecated)' }),
  capturedAt: Timestamp.meta({ description: 'when the values were entered on the device, in server time (docs/records.md)' }),
  receivedAt: Timestamp.meta({ description: 'when the server stored the record' }),
};

export const Deviations = z
  .object({
    days: z.number().int(),
    since: Timestamp,
    outOfLimits: z.array(
      z.object({
        ...RecordDeviation,
        fieldKey: z.string(),
        fieldLabel: z.string(),
        value: z.number().nullable(),
        unit: z.string().nullable(),
        min: z.number().nullable(),
        max: z.number().nullable(),
      }),
    ),
    stepProblems: z.array(
      z.object({
        ...RecordDeviation,
        status: z.enum(['FAILED', 'SKIPPED']),
        reason: z.string().nullable(),
        comment: z.string().nullable(),
      }),
    ),
    recordsTruncated: z.boolean(),
    unappliedChanges: z
      .array(
        z.object({
          id: Id.meta({ description: 'the deviation (GraphQL Deviation.databaseId)' }),
          job: JobRef,
          asset: Named.nullable(),
          stepId: z.string().nullable(),
          detail: z.string().meta({ description: 'what the device had recorded, and why it could not be applied again' }),
          raisedBy: Named.meta({ description: 'who reported it: the user the device was signed in as' }),
          raisedAt: Timestamp,
          acknowledged: z.boolean(),
        }),
      )
      .meta({
        description:
          'deviations UNAPPLIED_CHANGE: writes the server had acknowledged, lost with a restore and refused when the device sent them again (docs/reliability.md), the newest first',
      }),
    unappliedChangesTruncated: z.boolean(),
    openFaults: z.array(
      z.object({
        id: Id,
        severity: z.enum(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL']),
        description: z.string(),
        job: JobRef.nullable(),
        asset: Named.nullable(),
        stepId: z.string().nullable(),
        raisedBy: Named,
        raisedAt: Timestamp.meta({ description: 'when the server stored the fault' }),
        capturedAt: Timestamp.meta({ description: 'when it was raised on the device, in server time (docs/records.md)' }),
      }),
    ),
    openFaultsTruncated: z.boolean(),
    overdueJobs: z.array(BoardJob),
    overdueJobsTruncated: z.boolean(),
  })
  .meta({ id: 'Deviations' });

export const DeviationsQuery = z.object({
  days: z.coerce.number().int().min(1).max(90).default(7),
});

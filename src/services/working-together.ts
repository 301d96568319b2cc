import type { Kysely } from 'kysely';
import type { Deps } from '#deps';
import type { DB, HandOffRow, JobRow } from '#db/schema';
import { mapPage, type Page, type PageInput } from '#db/pagination';
import { isUniqueViolation, withSavepoint, withTransaction } from '#db/transaction';
import { conflict, forbidden, notFound, validationFailed } from '#errors';
import { HAND_OFF_TRANSITIONS, transition, type HandOffAction } from '#policies/transitions';
import { hasAnyRole } from '#policies/roles';
import { presentHandOff } from '#presenters/jobs';
import { appendAudit, auditActorIds } from '#repos/audit';
import { emitEvent } from '#events/emit';
import { loadFaultsOfJobs } from '#repos/faults';
import {
  getHandOffById,
  insertHandOff,
  listHandOffIdsOfJobs,
  listHandOffsOfUser,
  listPendingHandOffsOfJob,
  updateHandOff,
} from '#repos/hand-offs';
import { deleteJobMember, getJobById, insertJobMembers, listJobIdsOfTemplate, loadJobMembers } from '#repos/jobs';
import { listActiveUserIdsWithAnyRole, loadUsersByIds, type UserSummary } from '#repos/users';
import type { UserActor } from './actor';
import { assertJobOpen, assertMayWork, assignedEvent, auditActor, jobContent, writeJob } from './jobs';
import { assertQualified, jobRequirements, jobTarget } from './qualification-gate';
import { getVisibleTemplate } from './templates';
import { notify } from './notifications';
import { PERMISSIONS, requirePermission } from '#policies/permissions';

/**
 * Working together on a job (docs/api/contract.md 4.6 `POST /api/client/workingTogether`):
 * - HAND_OFF: someone who may work on the job offers the rest of it to another
 *   operator of the client (one PENDING hand-off per job);
 * - ACCEPT / DECLINE: only the receiver decides; accepting moves the job's
 *   assignment from the sender to the receiver (a job write: revision + 1);
 * - CANCEL: only the sender withdraws a pending hand-off (closing the job
 *   cancels it too);
 * - JOIN / LEAVE: co-working — an operator becomes (or stops being) a
 *   co-worker of the job, which lets them record on an assigned job.
 */

export type WorkingTogetherInput =
  | { action: 'HAND_OFF'; jobId: number; toUserId: number; note?: string; expectedRevision?: number }
  | { action: 'ACCEPT' | 'DECLINE' | 'CANCEL'; jobId: number; handOffId: number; expectedRevision?: number }
  | { action: 'JOIN' | 'LEAVE'; jobId: number; expectedRevision?: number };

export interface WorkingTogetherResult {
  job: JobRow;
  handOff: HandOffRow | null;
}

/**
 * @throws AppError NOT_FOUND (job, hand-off or user not the client's; a hand-off of
 *   another job), FORBIDDEN (role; not the receiver/sender), JOB_CLOSED,
 *   INVALID_TRANSITION (hand-off already decided), CONFLICT (a pending hand-off
 *   exists; stale expectedRevision), VALIDATION_ERROR (receiver not an operator, or oneself)
 */
export async function workTogether(deps: Deps, actor: UserActor, input: WorkingTogetherInput): Promise<WorkingTogetherResult> {
  requirePermission(actor.roles, 'runJob');
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx, afterCommit) => {
    const job = await getJobById(trx, actor.scope, input.jobId);
    const handOffEvent = (type: 'job.handoff.requested' | 'job.handoff.accepted' | 'job.handoff.declined', handOff: HandOffRow) =>
      emitEvent({ deps, trx, afterCommit }, actor.scope, type, presentHandOff(handOff));
    switch (input.action) {
      case 'HAND_OFF': {
        const handOff = await offer(trx, actor, job, input.toUserId, input.note ?? '', nowIso);
        await handOffEvent('job.handoff.requested', handOff);
        await notify({ deps, trx, afterCommit }, actor, { kind: 'hand_off', job, handOff });
        return { job, handOff };
      }
      case 'ACCEPT':
      case 'DECLINE':
      case 'CANCEL': {
        const result = await decide(trx, actor, job, input.handOffId, HAND_OFF_ACTIONS[input.action], input.expectedRevision, nowIso);
        // a sender withdrawing its own offer is not in the catalogue
        if (input.action !== 'CANCEL')
          await handOffEvent(input.action === 'ACCEPT' ? 'job.handoff.accepted' : 'job.handoff.declined', result.handOff!);
        // accepting moves the assignment: told to integrators (the receiver, who acted, is not notified)
        if (input.action === 'ACCEPT')
          await emitEvent({ deps, trx, afterCommit }, actor.scope, 'job.assigned', await assignedEvent(trx, actor.scope, result.job));
        return result;
      }
      case 'JOIN':
      case 'LEAVE':
        return { job: await cowork(trx, actor, job, input.action, input.expectedRevision, nowIso), handOff: null };
    }
  });
}

const HAND_OFF_ACTIONS: Record<'ACCEPT' | 'DECLINE' | 'CANCEL', HandOffAction> = { ACCEPT: 'accept', DECLINE: 'decline', CANCEL: 'cancel' };

async function offer(trx: Kysely<DB>, actor: UserActor, job: JobRow, toUserId: number, note: string, nowIso: string): Promise<HandOffRow> {
  assertJobOpen(job);
  await assertMayWork(trx, actor, job);
  const [receiver] = await loadUsersByIds(trx, actor.scope, [toUserId]);
  if (!receiver) throw notFound('User');
  if (receiver.id === actor.userId)
    throw validationFailed({ fields: [{ path: 'toUserId', message: 'a job is handed off to someone else' }] });
  if (!hasAnyRole(receiver.roles, PERMISSIONS.acceptHandOff)) {
    throw validationFailed({ fields: [{ path: 'toUserId', message: 'the receiver must be an operator of the client' }] });
  }
  let handOff: HandOffRow;
  try {
    handOff = await withSavepoint(trx, () =>
      insertHandOff(trx, actor.scope, {
        job_id: job.id,
        from_user_id: actor.userId,
        to_user_id: receiver.id,
        status: 'PENDING',
        note,
        created_at: nowIso,
        decided_at: null,
      }),
    );
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const [pending] = await listPendingHandOffsOfJob(trx, actor.scope, job.id);
    throw conflict('The job already has a pending hand-off', { handOff: pending ? presentHandOff(pending) : null });
  }
  await appendAudit(trx, actor.scope, {
    actor: auditActor(actor),
    action: 'hand_off.created',
    entityType: 'hand_off',
    entityId: handOff.id,
    after: presentHandOff(handOff),
    at: nowIso,
  });
  return handOff;
}

async function decide(
  trx: Kysely<DB>,
  actor: UserActor,
  job: JobRow,
  handOffId: number,
  action: HandOffAction,
  expectedRevision: number | undefined,
  nowIso: string,
): Promise<WorkingTogetherResult> {
  const handOff = await getHandOffById(trx, actor.scope, handOffId);
  if (handOff.job_id !== job.id) throw notFound('Hand-off');
  const status = transition(HAND_OFF_TRANSITIONS, handOff.status, action, actor.roles);
  // the receiver accepts or declines; the sender withdraws
  const decider = action === 'cancel' ? handOff.from_user_id : handOff.to_user_id;
  if (actor.userId !== decider)
    throw forbidden(action === 'cancel' ? 'Only the sender may cancel a hand-off' : 'Only the receiver may accept or decline a hand-off');
  let updatedJob = job;
  if (action === 'accept') {
    assertJobOpen(job);
    await assertQualified(
      trx,
      actor.scope,
      [actor.userId],
      jobRequirements(await jobContent(trx, actor.scope, job)),
      jobTarget(job),
      { action: 'accept' },
      new Date(nowIso),
    );
    updatedJob = await writeJob(trx, actor.scope, job, expectedRevision, {}, nowIso);
    await deleteJobMember(trx, actor.scope, job.id, handOff.from_user_id, 'ASSIGNEE');
    await insertJobMembers(trx, actor.scope, [{ jobId: job.id, userId: handOff.to_user_id, kind: 'ASSIGNEE' }], nowIso);
    await appendAudit(trx, actor.scope, {
      actor: auditActor(actor),
      action: 'job.reassigned',
      entityType: 'job',
      entityId: job.id,
      before: { assigneeId: handOff.from_user_id, revision: job.revision },
      after: { assigneeId: handOff.to_user_id, revision: updatedJob.revision, handOffId: handOff.id },
      at: nowIso,
    });
  }
  const decided = await updateHandOff(trx, actor.scope, handOff.id, { status, decided_at: nowIso });
  await appendAudit(trx, actor.scope, {
    actor: auditActor(actor),
    action: `hand_off.${status.toLowerCase()}`,
    entityType: 'hand_off',
    entityId: handOff.id,
    before: { status: handOff.status },
    after: { status },
    at: nowIso,
  });
  return { job: updatedJob, handOff: decided };
}

async function cowork(
  trx: Kysely<DB>,
  actor: UserActor,
  job: JobRow,
  action: 'JOIN' | 'LEAVE',
  expectedRevision: number | undefined,
  nowIso: string,
): Promise<JobRow> {
  assertJobOpen(job);
  const members = await loadJobMembers(trx, actor.scope, [job.id]);
  const isCoworker = members.some((m) => m.kind === 'COWORKER' && m.user_id === actor.userId);
  // joining twice or leaving a job one is not on changes nothing: answered, not written
  if (isCoworker === (action === 'JOIN')) return job;
  const updated = await writeJob(trx, actor.scope, job, expectedRevision, {}, nowIso);
  if (action === 'JOIN') await insertJobMembers(trx, actor.scope, [{ jobId: job.id, userId: actor.userId, kind: 'COWORKER' }], nowIso);
  else await deleteJobMember(trx, actor.scope, job.id, actor.userId, 'COWORKER');
  await appendAudit(trx, actor.scope, {
    actor: auditActor(actor),
    action: action === 'JOIN' ? 'job.joined' : 'job.left',
    entityType: 'job',
    entityId: job.id,
    before: { revision: job.revision },
    after: { revision: updated.revision, coworkerId: actor.userId },
    at: nowIso,
  });
  return updated;
}

/** The caller's hand-offs, sent and received. */
export async function listHandOffStatuses(deps: Deps, actor: UserActor, page: PageInput): Promise<Page<ReturnType<typeof presentHandOff>>> {
  return mapPage(await listHandOffsOfUser(deps.db.kysely, actor.scope, actor.userId, page), presentHandOff);
}

const CHUNK = 500;
function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * The distinct users in the history of a job (or of every job of a template):
 * whoever acted on the job, its faults or its hand-offs (the audit trail: creator,
 * recorders, transitions, hand-off senders and deciders, co-workers who joined),
 * and whoever is a member now (assignees, co-workers, step owners). Users since
 * deleted drop out.
 * @throws AppError NOT_FOUND when the job or template is not the client's
 */
export async function jobHistoryUsers(deps: Deps, actor: UserActor, of: { jobId?: number; templateId?: number }): Promise<UserSummary[]> {
  const db = deps.db.kysely;
  const scope = actor.scope;
  let jobIds: number[];
  if (of.jobId !== undefined) jobIds = [(await getJobById(db, scope, of.jobId)).id];
  else if (of.templateId !== undefined) {
    await getVisibleTemplate(db, actor, of.templateId);
    jobIds = await listJobIdsOfTemplate(db, scope, of.templateId);
  } else throw validationFailed({ fields: [{ path: 'jobId', message: 'jobId or templateId is required' }] });

  const userIds = new Set<number>();
  for (const part of chunks(jobIds)) {
    const faultIds = (await loadFaultsOfJobs(db, scope, part)).map((f) => String(f.id));
    const handOffIds = (await listHandOffIdsOfJobs(db, scope, part)).map(String);
    const actors = await auditActorIds(db, scope, [
      { entityType: 'job', entityIds: part.map(String) },
      ...chunks(faultIds).map((entityIds) => ({ entityType: 'fault', entityIds })),
      ...chunks(handOffIds).map((entityIds) => ({ entityType: 'hand_off', entityIds })),
    ]);
    for (const id of actors) userIds.add(id);
    for (const member of await loadJobMembers(db, scope, part)) userIds.add(member.user_id);
  }
  const users = (await Promise.all(chunks([...userIds]).map((ids) => loadUsersByIds(db, scope, ids)))).flat();
  return users.sort((a, b) => a.id - b.id);
}

/**
 * Whom the caller may hand a job off to: the client's active users who may
 * accept a hand-off (HAND_OFF_TRANSITIONS), the caller excepted, by name. The
 * floor app's hand-off picker reads it; an operator has no other way to list
 * the client's users.
 */
export async function handOffColleagues(deps: Deps, actor: UserActor): Promise<UserSummary[]> {
  const db = deps.db.kysely;
  const ids = (await listActiveUserIdsWithAnyRole(db, actor.scope, PERMISSIONS.acceptHandOff)).filter((id) => id !== actor.userId);
  const users = (await Promise.all(chunks(ids).map((part) => loadUsersByIds(db, actor.scope, part)))).flat();
  return users.sort(
    (a, b) => `${a.last_name} ${a.first_name} ${a.email}`.localeCompare(`${b.last_name} ${b.first_name} ${b.email}`) || a.id - b.id,
  );
}

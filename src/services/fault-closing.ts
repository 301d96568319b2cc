import type { JobRow } from '#db/schema';
import { FAULT_TRANSITIONS, transition } from '#policies/transitions';
import { presentFault } from '#presenters/jobs';
import { appendAudit } from '#repos/audit';
import { getFaultById, updateFault } from '#repos/faults';
import { loadFollowUpsOfJobs } from '#repos/schedules';
import { emitEvent, type EventTx } from '#events/emit';
import type { UserActor } from './actor';

/**
 * Completing a follow-up job created with `closesFault` closes its fault
 * (docs/recurring-and-follow-up-jobs.md), in the completion's transaction and
 * by whoever completed it (closing follows FAULT_TRANSITIONS like closeFault).
 * A fault closed meanwhile stays as it is. Its own module so the job service
 * calls it without depending on the follow-up service (which creates jobs).
 */
export async function closeFaultsFollowedUpBy(tx: EventTx, actor: UserActor, job: JobRow, nowIso: string): Promise<void> {
  const scope = actor.scope;
  for (const followUp of await loadFollowUpsOfJobs(tx.trx, scope, [job.id])) {
    if (followUp.closes_fault !== 1) continue;
    const fault = await getFaultById(tx.trx, scope, followUp.fault_id);
    if (fault.state !== 'OPEN') continue;
    const state = transition(FAULT_TRANSITIONS, fault.state, 'close', actor.roles);
    const note = `Closed by completing follow-up job ${job.id} (${job.title})`;
    const closed = await updateFault(tx.trx, scope, fault.id, { state, closed_by: actor.userId, closed_at: nowIso, close_note: note });
    await appendAudit(tx.trx, scope, {
      actor: { userId: actor.userId, email: actor.email },
      action: 'fault.closed',
      entityType: 'fault',
      entityId: fault.id,
      before: { state: fault.state },
      after: { state: closed.state, closeNote: note, followUpJobId: job.id },
      at: nowIso,
    });
    await emitEvent(tx, scope, 'fault.closed', presentFault(closed));
  }
}

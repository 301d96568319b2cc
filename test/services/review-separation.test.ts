import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { partTaken, reviewBlock } from '#services/deviations';
import type { UserActor } from '#services/actor';

/**
 * The separation of duties of review by exception (docs/execution-rules.md), where the rule lives: whoever recorded,
 * performed or verified a step of a job may not sign it REVIEWED. reviewJob refuses with partTaken; Job.viewerReviewBlock
 * answers reviewBlock — one rule for both.
 */
const separation = suite('review by exception: separation of duties');

const records = [
  { step_id: 'a', recorded_by: 1 },
  { step_id: 'b', recorded_by: 2 },
];
const signatures = [
  { step_id: 'a', signer_id: 3, meaning: 'PERFORMED' as const },
  { step_id: 'b', signer_id: 4, meaning: 'VERIFIED' as const },
];
const actor = (userId: number, roles = ['approver']) => ({ kind: 'user', userId, roles }) as UserActor;

separation('partTaken: the step recorded, performed or verified, and how; a record first', () => {
  assert.equal(partTaken(records, signatures, 2), { stepId: 'b', part: 'RECORDED' });
  assert.equal(partTaken(records, signatures, 3), { stepId: 'a', part: 'PERFORMED' });
  assert.equal(partTaken(records, signatures, 4), { stepId: 'b', part: 'VERIFIED' });
  assert.equal(partTaken(records, [...signatures, { step_id: 'b', signer_id: 1, meaning: 'VERIFIED' }], 1), {
    stepId: 'a',
    part: 'RECORDED',
  });
  assert.is(partTaken(records, signatures, 5), null);
});

separation('reviewBlock: the review transition (role, then state) before the separation of duties', () => {
  assert.equal(reviewBlock(actor(5, ['operator']), { state: 'COMPLETED' }, records, signatures), { reason: 'NOT_A_REVIEWER' });
  assert.equal(reviewBlock(actor(4), { state: 'IN_PROGRESS' }, records, signatures), { reason: 'NOT_COMPLETED' });
  assert.equal(reviewBlock(actor(5), { state: 'REVIEWED' }, records, signatures), { reason: 'NOT_COMPLETED' });
  assert.equal(reviewBlock(actor(4), { state: 'COMPLETED' }, records, signatures), { reason: 'TOOK_PART', stepId: 'b', part: 'VERIFIED' });
  assert.is(reviewBlock(actor(5), { state: 'COMPLETED' }, records, signatures), null);
  assert.is(reviewBlock(actor(5, ['admin']), { state: 'COMPLETED' }, records, signatures), null);
});

separation.run();

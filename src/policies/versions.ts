import { AppError } from '#errors';
import type { VersionState } from '#db/schema';

/**
 * Rules about template versions that are not transitions: which states take
 * edits, and separation of duties between authoring and approving.
 */

/** Only a draft is rewritten; every other state is a document someone reviewed or signed. */
export const EDITABLE_VERSION_STATES: readonly VersionState[] = ['DRAFT'];

/** @throws AppError VERSION_NOT_EDITABLE unless the version is a draft */
export function assertVersionEditable(state: VersionState): void {
  if (!EDITABLE_VERSION_STATES.includes(state)) {
    throw new AppError('VERSION_NOT_EDITABLE', `A ${state} version cannot be edited; start a new draft`, { state });
  }
}

/**
 * Separation of duties (docs/work-instructions.md): nobody approves a version they
 * created or last edited — whatever their roles, admins included — unless the
 * client relaxed it (`allowSelfApproval`).
 * @throws AppError SEPARATION_OF_DUTIES
 */
export function assertSeparationOfDuties(
  version: { created_by: number; updated_by: number },
  approverId: number,
  settings: { allowSelfApproval: boolean },
): void {
  if (settings.allowSelfApproval) return;
  if (version.created_by === approverId || version.updated_by === approverId) {
    throw new AppError('SEPARATION_OF_DUTIES', 'You cannot approve a version you created or last edited', {
      createdBy: version.created_by,
      updatedBy: version.updated_by,
    });
  }
}

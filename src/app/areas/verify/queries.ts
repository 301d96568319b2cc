import type { JobPriority, JobState, StepSignatureMeaning } from '../../../domain/vocabulary';
// the types written out rather than imported from offline/job-data: this module stays free of the DOM (a unit test
// runs stepsWaitingFor in Node)
type SignoffDef = { performer: boolean; verifier: { roles: string[] } | null };

/**
 * The jobs with a step waiting for someone's verification: running jobs
 * (IN_PROGRESS, PAUSED: a completed job has every sign-off), with just what
 * tells whether a step waits — its sign-off, its record's author, the
 * signatures and whether it applies. The first 100 of each state: a plant has
 * fewer jobs running at once.
 */
const WAITING_FIELDS = `id databaseId title state priority dueAt asset { name } template { title }
  version { content { sections { steps { stepId title signoff { performer verifier { roles } } } } } }
  records { stepId recordedBy { databaseId } }
  steps { stepId applies }
  signoffs { stepId meaning signer { databaseId } invalidatedAt }`;

export const TO_VERIFY = /* GraphQL */ `
  query AppToVerify {
    inProgress: jobs(first: 100, filter: { state: IN_PROGRESS }) { nodes { ${WAITING_FIELDS} } }
    paused: jobs(first: 100, filter: { state: PAUSED }) { nodes { ${WAITING_FIELDS} } }
  }
`;

export interface WaitingJob {
  id: string;
  databaseId: number;
  title: string;
  state: Exclude<JobState, 'REVIEWED'>;
  priority: JobPriority;
  dueAt: string | null;
  asset: { name: string } | null;
  template: { title: string };
  version: { content: { sections: { steps: { stepId: string; title: string; signoff: SignoffDef | null }[] }[] } };
  records: { stepId: string; recordedBy: { databaseId: number } }[];
  steps: { stepId: string; applies: boolean }[];
  signoffs: { stepId: string; meaning: StepSignatureMeaning; signer: { databaseId: number } | null; invalidatedAt: string | null }[];
}

/**
 * The steps of a job waiting for `user`'s verification: the step applies, is
 * recorded, asks for a verifier of one of the user's roles, has no valid
 * VERIFIED signature, and the user neither recorded it nor signed it
 * PERFORMED (the server refuses those: SEPARATION_OF_DUTIES).
 */
export function stepsWaitingFor(
  job: Pick<WaitingJob, 'version' | 'records' | 'steps' | 'signoffs'>,
  user: { id: number; roles: readonly string[] },
): { stepId: string; title: string }[] {
  const valid = (stepId: string, meaning: string) =>
    job.signoffs.find((s) => s.stepId === stepId && s.meaning === meaning && s.invalidatedAt === null);
  return job.version.content.sections
    .flatMap((section) =>
      section.steps.filter((step) => {
        const roles = step.signoff?.verifier?.roles ?? [];
        if (!roles.some((r) => user.roles.includes(r))) return false;
        if (job.steps.find((s) => s.stepId === step.stepId)?.applies === false) return false;
        const record = job.records.find((r) => r.stepId === step.stepId);
        if (!record || record.recordedBy.databaseId === user.id) return false;
        if (valid(step.stepId, 'VERIFIED')) return false;
        return valid(step.stepId, 'PERFORMED')?.signer?.databaseId !== user.id;
      }),
    )
    .map((step) => ({ stepId: step.stepId, title: step.title }));
}

/** The read-only record of a job (JobRecordPage): where the board, deviations and review link a job to. */
export function jobRecordPath(databaseId: number | string): string {
  return `/app/jobs/${databaseId}/record`;
}

import type { UserReportRow } from '#repos/user-report';

// Report rows → API shape (the vendor users report; the meter and activity
// reports are built in the API shape by src/services/reports.ts).

export function presentUserReportRow(row: UserReportRow) {
  return {
    id: row.id,
    clientId: row.client_id,
    clientName: row.client_name,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    title: row.title,
    licenseType: row.license_type,
    roles: row.roles,
    status: row.status,
    lastSignInAt: row.last_sign_in_at,
    createdAt: row.created_at,
  };
}

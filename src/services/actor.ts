import type { TenantScope } from '#db/tenant';
import type { PresentableUser } from '#presenters';

/** Who is calling: set by the authenticate middleware (or built by the CLI). */
export type Actor = UserActor | SystemAdminActor;

export interface UserActor {
  kind: 'user';
  userId: number;
  clientId: number;
  scope: TenantScope;
  email: string;
  roles: string[];
  licenseType: string;
  sessionId: number;
  /** how the request authenticated: cookie requests need CSRF defence on writes */
  via: 'bearer' | 'cookie';
  /** the client requires a second factor this user has not enabled yet: only enrolment routes are open */
  twoFactorSetupRequired?: boolean;
  /** the user's row as read by authentication in this request (no second query for GET /me) */
  user: PresentableUser;
}

export interface SystemAdminActor {
  kind: 'admin';
  adminId: number;
  username: string;
  sessionId: number;
  /** how the request authenticated: the console's cookie requests need CSRF defence on writes */
  via: 'bearer' | 'cookie';
}

/** Request facts recorded with sessions and security events. */
export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
  requestId?: string | null;
}

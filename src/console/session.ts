import { api, ApiError } from './api';

/** Who the browser's session cookie belongs to: a system administrator, a client user, or nobody. */
export type Session =
  | { kind: 'admin'; username: string; initialPasswordInUse: boolean }
  | { kind: 'user'; id: number; email: string; clientId: number; roles: string[]; name: string }
  | { kind: 'none' };

export async function currentSession(): Promise<Session> {
  try {
    const admin = await api('GET', '/api/admin/auth/me');
    return { kind: 'admin', username: admin.username, initialPasswordInUse: admin.initialPasswordInUse };
  } catch (error) {
    if (!(error instanceof ApiError) || (error.status !== 401 && error.status !== 403)) throw error;
  }
  try {
    const user = await api('GET', '/api/client/auth/me');
    return {
      kind: 'user',
      id: user.id,
      email: user.email,
      clientId: user.clientId,
      roles: user.roles,
      name: [user.firstName, user.lastName].filter(Boolean).join(' '),
    };
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return { kind: 'none' };
    throw error;
  }
}

export async function signOut(session: Session): Promise<void> {
  if (session.kind === 'admin') await api('POST', '/api/admin/auth/sign-out');
  else if (session.kind === 'user') await api('POST', '/api/client/auth/sign-out');
}

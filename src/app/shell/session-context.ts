import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from '../api/session';

export interface SessionState {
  session: Session;
  /** true when the session is the one last seen on this device, the server unreachable (offline start) */
  offline: boolean;
  /** reads the session again (after a change of roles, language …) */
  refresh: () => Promise<void>;
  signOut: () => Promise<void>;
}

export const SessionContext = createContext<SessionState | null>(null);

/** The signed-in user's session; only inside the signed-in shell (every area page). */
export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside the signed-in shell');
  return state;
}

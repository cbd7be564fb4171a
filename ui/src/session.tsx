// The signed-in user: who they are, their role matrix (from /auth/me), their profile (time zone
// and language), and the "may I?" question every page asks before it offers an action.
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Me, OrgRole, Profile, ProjectRole } from "./api/types";

const orgRank: Record<OrgRole, number> = { viewer: 0, operator: 1, admin: 2, owner: 3 };
const projectRank: Record<ProjectRole, number> = { viewer: 0, operator: 1, admin: 2 };

export interface Session {
  me: Me;
  profile: Profile;
  reload: () => Promise<void>;
  logout: () => Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside a session");
  return s;
}

// The caller's role in a project: org admins and owners administer every project; others have
// their membership's role (the server's rule, docs/api.md Roles).
export function projectRole(me: Me, projectId: string): ProjectRole | null {
  if (orgRank[me.org_role] >= orgRank.admin) return "admin";
  return me.memberships.find((m) => m.project_id === projectId)?.role ?? null;
}

// Whether the role matrix the server sent allows `action` (in `projectId` for project actions).
export function can(me: Me, action: string, projectId?: string): boolean {
  const rule = me.access_rules.find((r) => r.action === action);
  if (!rule) return false;
  if (rule.org_role) return orgRank[me.org_role] >= orgRank[rule.org_role];
  if (!rule.project_role || !projectId) return false;
  const role = projectRole(me, projectId);
  return role !== null && projectRank[role] >= projectRank[rule.project_role];
}

export function useCan(): (action: string, projectId?: string) => boolean {
  const { me } = useSession();
  return (action, projectId) => can(me, action, projectId);
}

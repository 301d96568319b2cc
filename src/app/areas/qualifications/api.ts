import { globalId, graphql } from '../../api/client';

/** The qualifications area's reads and writes: GraphQL of docs/qualifications.md. */

export interface Skill {
  id: string;
  name: string;
  description: string;
  levels: number;
  validityDays: number | null;
}

export interface Person {
  databaseId: number;
  firstName: string;
  lastName: string;
  email: string;
}

export interface Grant {
  skill: { id: string };
  level: number;
  expiresAt: string | null;
  expired: boolean;
  trainerName: string | null;
  trainedAt: string | null;
}

export interface MatrixRow {
  user: Person;
  skills: Grant[];
}

export interface Override {
  user: Person | null;
  job: { databaseId: number; title: string } | null;
  template: { databaseId: number; title: string } | null;
  reason: string;
  lacking: { skills?: { skill: string; requiredLevel: number; heldLevel: number | null; reason: string }[] };
  overriddenByName: string;
  createdAt: string;
}

/** the page's bound: the client's skills and users (a plant's matrix fits; more would need paging) */
export const MATRIX_SIZE = 200;

const PERSON = 'databaseId firstName lastName email';

export async function loadMatrix(): Promise<{ skills: Skill[]; rows: MatrixRow[]; truncated: boolean }> {
  const data = await graphql<{
    skills: { nodes: Skill[] };
    skillMatrix: { nodes: MatrixRow[]; totalCount: number };
  }>(
    `query SkillMatrix {
      skills(first: ${MATRIX_SIZE}) { nodes { id name description levels validityDays } }
      skillMatrix(first: ${MATRIX_SIZE}) { totalCount nodes { user { ${PERSON} } skills { skill { id } level expiresAt expired trainerName trainedAt } } }
    }`,
  );
  return {
    skills: data.skills.nodes,
    rows: data.skillMatrix.nodes,
    truncated: data.skillMatrix.totalCount > data.skillMatrix.nodes.length,
  };
}

export const OVERRIDE_FIELDS = `user { ${PERSON} } job { databaseId title } template { databaseId title } reason lacking overriddenByName createdAt`;

export async function recentOverrides(days: number): Promise<Override[]> {
  const data = await graphql<{ qualificationOverrides: Override[] }>(
    `query RecentOverrides($days: Int) { qualificationOverrides(days: $days) { ${OVERRIDE_FIELDS} } }`,
    { days },
  );
  return data.qualificationOverrides;
}

export function grantSkill(input: {
  userId: number;
  skillId: string;
  level: number;
  expiresAt: string | null;
  password: string | null;
  code: string | null;
}): Promise<unknown> {
  return graphql(
    `
      mutation GrantSkill($input: GrantSkillInput!) {
        grantSkill(input: $input) {
          userSkill {
            level
          }
        }
      }
    `,
    {
      input: { ...input, userId: globalId('User', input.userId), expiresAt: input.expiresAt ?? undefined },
    },
  );
}

export function revokeSkill(userId: number, skillId: string): Promise<unknown> {
  return graphql(
    `
      mutation RevokeSkill($input: RevokeSkillInput!) {
        revokeSkill(input: $input) {
          revoked {
            level
          }
        }
      }
    `,
    {
      input: { userId: globalId('User', userId), skillId },
    },
  );
}

export function createSkill(input: { name: string; description: string; levels: number; validityDays: number | null }): Promise<unknown> {
  return graphql(
    `
      mutation CreateSkill($input: CreateSkillInput!) {
        createSkill(input: $input) {
          skill {
            id
          }
        }
      }
    `,
    { input },
  );
}

export const personName = (p: Person) => [p.firstName, p.lastName].filter(Boolean).join(' ') || p.email;

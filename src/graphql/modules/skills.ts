import type { GraphQLResolveInfo } from 'graphql';
import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import { CONNECTION_ARGS, connectionTypeDefs, pageInput, toConnection, type ConnectionArgs } from '../connection';
import { databaseIdOf, optionalDatabaseIdOf } from '../ids';
import type { SkillRequirement } from '#domain/qualifications';
import { presentJob, type PresentedJob } from '#presenters/jobs';
import type { PresentedTemplate } from '#presenters/templates';
import type { Standing } from '#services/qualification-gate';
import {
  acknowledgeRetraining,
  createSkill,
  expiringSkills,
  grantSkill,
  listSkills,
  mySkills,
  myRetrainings,
  overrideQualification,
  overridesOfJobFor,
  presentOverride,
  recentOverrides,
  presentRetraining,
  presentSkill,
  presentUserSkill,
  revokeSkill,
  skillMatrix,
  userSkillExpired,
  viewerStanding,
  assigneeStandings,
  type CreateSkillInput,
  type PresentedOverride,
  type PresentedRetraining,
  type PresentedUserSkill,
} from '#services/qualifications';
import { userColumns } from './me';
import { templateColumns, versionColumns } from './templates';

type Ctx = GraphQLContext;

const presentStanding = (userId: number, s: Standing) => ({
  userId,
  qualified: s.qualified,
  overridden: s.overridden,
  lacking: s.skills,
  retrainingDue: s.retrainingDue.length > 0,
});
type PresentedStanding = ReturnType<typeof presentStanding>;

/**
 * Qualifications (docs/qualifications.md): skills, who holds them at which
 * level and until when, the matrix, the requirements a version's content (and
 * a step's sign-off) carries, overrides and retraining acknowledgements.
 */
export const skillsModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    "A skill of the client (docs/qualifications.md). Templates require it by name."
    type Skill implements Node {
      id: ID!
      databaseId: Int!
      "unique within the client; what a version's qualifications name"
      name: String!
      description: String!
      "1: held or not; 2 to 4: a grant holds one of the levels 1..levels"
      levels: Int!
      "a grant expires this many days after it is given; null: never (unless the grant says)"
      validityDays: Int
      createdAt: DateTime!
    }

    "A skill a user holds: the level, until when, and the trainer's sign-off when one was given."
    type UserSkill {
      "null when the account is gone"
      user: User
      skill: Skill!
      level: Int!
      grantedBy: User
      grantedAt: DateTime!
      "null: does not expire"
      expiresAt: DateTime
      "expiresAt has passed: the grant no longer counts"
      expired: Boolean!
      "the trainer's e-signature (meaning TRAINED): the printed name, the signer and when; null without one"
      trainerName: String
      trainedBy: User
      trainedAt: DateTime
    }

    "A row of the skill matrix: a user of the client and every skill they hold (expired ones too)."
    type SkillMatrixRow {
      user: User!
      skills: [UserSkill!]!
    }

    ${connectionTypeDefs('Skill')}
    ${connectionTypeDefs('UserSkill')}
    ${connectionTypeDefs('SkillMatrixRow')}

    "A skill at a level, named in a version's content (qualifications) or a step's sign-off (skills)."
    type SkillRequirement {
      "the skill's name"
      skill: String!
      level: Int!
    }

    input SkillRequirementInput {
      skill: String!
      "1 when omitted"
      level: Int
    }

    extend type Content {
      "the skills whoever is assigned, accepts, starts or records a job of the version must hold (docs/qualifications.md)"
      qualifications: [SkillRequirement!]!
    }

    extend input ContentInput {
      "the skills a job of the version requires of whoever works on it"
      qualifications: [SkillRequirementInput!]
    }

    extend type StepSignoff {
      "the skills whoever signs the step must hold"
      skills: [SkillRequirement!]!
    }

    extend input StepSignoffInput {
      skills: [SkillRequirementInput!]
    }

    extend type VersionDiff {
      "the skills the version requires changed"
      qualificationsChanged: Boolean!
    }

    "Permission for a user lacking a required skill to work on a job (or on jobs of a version): a deviation."
    type QualificationOverride {
      user: User
      "null: the override covers jobs of the version (set before the job was created)"
      job: Job
      template: Template
      version: TemplateVersion
      reason: String!
      "what the user lacked when the override was set: {skills: [{skill, requiredLevel, heldLevel, expiresAt, reason}], retrainingDue}"
      lacking: JSON!
      overriddenBy: User
      overriddenByName: String!
      createdAt: DateTime!
    }

    "A published version whose steps changed, to be read by a user qualified on its template."
    type Retraining {
      template: Template
      "the version to read (its diff against previousVersion: versionDiff)"
      version: TemplateVersion
      previousVersion: TemplateVersion
      dueSince: DateTime!
      "null: still due — jobs of the version refuse the user with NOT_QUALIFIED"
      acknowledgedAt: DateTime
    }

    extend type Query {
      "The client's skills, in creation order."
      skills(${CONNECTION_ARGS}): SkillConnection!
      "Users × skills: a page of the client's users, each with the skills held, level and expiry."
      skillMatrix(${CONNECTION_ARGS}): SkillMatrixRowConnection!
      "Grants expiring within the next withinDays days (0 to 3650), not yet expired."
      expiringSkills(withinDays: Int!, ${CONNECTION_ARGS}): UserSkillConnection!
      "The caller's skills: a list, bounded by the client's skills."
      mySkills: [UserSkill!]!
      "The caller's retrainings, due ones first (at most 200)."
      myRetrainings: [Retraining!]!
      "Qualification overrides of the last days (1 to 90, default 7), newest first, at most 200: deviations for supervisors."
      qualificationOverrides(days: Int): [QualificationOverride!]!
    }

    extend type Job {
      "the qualification overrides the job ran under (set on it, or on its version for one of its members): deviations"
      qualificationOverrides: [QualificationOverride!]!
      "whether the caller may work on the job now, by the rule that refuses with NOT_QUALIFIED: told before the work"
      viewerQualification: QualificationCheck!
    }

    extend type Template {
      """
      Whether each user could be assigned a job of the published version now (the check createJob refuses with),
      for job planners; at most 50 users, ids of no user of the client left out. NO_PUBLISHED_VERSION without one.
      """
      assigneeQualifications(userIds: [ID!]!): [QualificationCheck!]!
    }

    "Why NOT_QUALIFIED would refuse a user: a required skill not held, held at a lower level, or expired."
    enum LackReason {
      NOT_HELD
      LEVEL_TOO_LOW
      EXPIRED
    }

    "A required skill a user lacks (NOT_QUALIFIED's details.skills)."
    type LackingSkill {
      skill: String!
      requiredLevel: Int!
      "null: not held"
      heldLevel: Int
      "the held grant's expiry (past when EXPIRED)"
      expiresAt: DateTime
      reason: LackReason!
    }

    "A user's standing on a job (or on jobs of a template): what they lack, and whether they may work all the same."
    type QualificationCheck {
      user: User
      "lacks nothing, or an override covers what they lack"
      qualified: Boolean!
      "an override lets the user work although they lack something"
      overridden: Boolean!
      lacking: [LackingSkill!]!
      "a retraining of the template is due: the user reads what changed (myRetrainings) and acknowledges it"
      retrainingDue: Boolean!
    }

    input CreateSkillInput {
      name: String!
      description: String
      "1 (default) to 4"
      levels: Int
      validityDays: Int
    }

    type CreateSkillPayload {
      skill: Skill!
    }

    "Granting again replaces level, expiry and sign-off. password or code: the granter signs as trainer (TRAINED)."
    input GrantSkillInput {
      userId: ID!
      skillId: ID!
      "1 when omitted; at most the skill's levels"
      level: Int
      "omitted: the skill's validityDays from now, or no expiry"
      expiresAt: DateTime
      password: String
      code: String
    }

    type GrantSkillPayload {
      userSkill: UserSkill!
    }

    input RevokeSkillInput {
      userId: ID!
      skillId: ID!
    }

    type RevokeSkillPayload {
      "the grant as it was"
      revoked: UserSkill!
    }

    "jobId: the job the user may work on; or templateId: jobs of its published version (to assign a job being created)."
    input OverrideQualificationInput {
      userId: ID!
      jobId: ID
      templateId: ID
      reason: String!
    }

    type OverrideQualificationPayload {
      override: QualificationOverride!
    }

    input AcknowledgeRetrainingInput {
      "the version whose diff the caller read"
      versionId: ID!
    }

    type AcknowledgeRetrainingPayload {
      retraining: Retraining!
    }

    extend type Mutation {
      "A skill of the client. CONFLICT: the name exists."
      createSkill(input: CreateSkillInput!): CreateSkillPayload!
      "Grants a user a skill (never to oneself: SEPARATION_OF_DUTIES); with password or code an e-signature (INVALID_CREDENTIALS)."
      grantSkill(input: GrantSkillInput!): GrantSkillPayload!
      "Takes a skill away. NOT_FOUND: the user does not hold it."
      revokeSkill(input: RevokeSkillInput!): RevokeSkillPayload!
      "Lets a user who lacks a required skill work anyway, with a reason (audited, a deviation)."
      overrideQualification(input: OverrideQualificationInput!): OverrideQualificationPayload!
      "The caller read the version's diff: its retraining is no longer due. NOT_FOUND: none of that version for the caller."
      acknowledgeRetraining(input: AcknowledgeRetrainingInput!): AcknowledgeRetrainingPayload!
    }
  `,
  resolvers: {
    Query: {
      skills: async (_: unknown, args: ConnectionArgs, ctx: Ctx) => {
        const input = pageInput(args);
        return toConnection(await listSkills(ctx.deps, ctx.actor, input), input, presentSkill);
      },
      skillMatrix: async (_: unknown, args: ConnectionArgs, ctx: Ctx) => {
        const input = pageInput(args);
        return toConnection(await skillMatrix(ctx.deps, ctx.actor, input), input, (row) => ({
          userId: row.userId,
          skills: row.skills.map(presentUserSkill),
        }));
      },
      expiringSkills: async (_: unknown, args: ConnectionArgs & { withinDays: number }, ctx: Ctx) => {
        const input = pageInput(args);
        return toConnection(await expiringSkills(ctx.deps, ctx.actor, args.withinDays, input), input, presentUserSkill);
      },
      mySkills: async (_: unknown, _args: unknown, ctx: Ctx) => (await mySkills(ctx.deps, ctx.actor)).map(presentUserSkill),
      myRetrainings: async (_: unknown, _args: unknown, ctx: Ctx) => (await myRetrainings(ctx.deps, ctx.actor)).map(presentRetraining),
      qualificationOverrides: async (_: unknown, args: { days?: number | null }, ctx: Ctx) =>
        (await recentOverrides(ctx.deps, ctx.actor, args.days ?? 7)).map(presentOverride),
    },
    Job: {
      qualificationOverrides: async (job: PresentedJob, _: unknown, ctx: Ctx) =>
        (await overridesOfJobFor(ctx.deps, ctx.actor, job)).map(presentOverride),
      viewerQualification: async (job: PresentedJob, _: unknown, ctx: Ctx) => {
        const version = await ctx.loaders.versionContent.load(job.versionId);
        const standing = await viewerStanding(ctx.deps, ctx.actor, job, version?.content ?? { sections: [] });
        return presentStanding(ctx.actor.userId, standing);
      },
    },
    Template: {
      assigneeQualifications: async (template: PresentedTemplate, args: { userIds: string[] }, ctx: Ctx) => {
        const ids = args.userIds.map((id, i) => databaseIdOf(id, 'User', `userIds.${i}`));
        return (await assigneeStandings(ctx.deps, ctx.actor, template.id, ids)).map((s) => presentStanding(s.userId, s.standing));
      },
    },
    QualificationCheck: {
      user: (check: PresentedStanding, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders.user(userColumns.of(info)).load(check.userId),
    },
    Mutation: {
      createSkill: async (_: unknown, { input }: { input: CreateSkillInput }, ctx: Ctx) => ({
        skill: presentSkill(await createSkill(ctx.deps, ctx.actor, input)),
      }),
      grantSkill: async (
        _: unknown,
        {
          input,
        }: {
          input: {
            userId: string;
            skillId: string;
            level?: number | null;
            expiresAt?: string | null;
            password?: string | null;
            code?: string | null;
          };
        },
        ctx: Ctx,
      ) => {
        const grant = await grantSkill(
          ctx.deps,
          ctx.actor,
          {
            ...input,
            userId: databaseIdOf(input.userId, 'User', 'input.userId'),
            skillId: databaseIdOf(input.skillId, 'Skill', 'input.skillId'),
          },
          ctx.meta,
        );
        return { userSkill: presentUserSkill(grant) };
      },
      revokeSkill: async (_: unknown, { input }: { input: { userId: string; skillId: string } }, ctx: Ctx) => {
        const revoked = await revokeSkill(ctx.deps, ctx.actor, {
          userId: databaseIdOf(input.userId, 'User', 'input.userId'),
          skillId: databaseIdOf(input.skillId, 'Skill', 'input.skillId'),
        });
        return { revoked: presentUserSkill(revoked) };
      },
      overrideQualification: async (
        _: unknown,
        { input }: { input: { userId: string; jobId?: string | null; templateId?: string | null; reason: string } },
        ctx: Ctx,
      ) => {
        const override = await overrideQualification(ctx.deps, ctx.actor, {
          userId: databaseIdOf(input.userId, 'User', 'input.userId'),
          jobId: optionalDatabaseIdOf(input.jobId, 'Job', 'input.jobId'),
          templateId: optionalDatabaseIdOf(input.templateId, 'Template', 'input.templateId'),
          reason: input.reason,
        });
        return { override: presentOverride(override) };
      },
      acknowledgeRetraining: async (_: unknown, { input }: { input: { versionId: string } }, ctx: Ctx) => ({
        retraining: presentRetraining(
          await acknowledgeRetraining(ctx.deps, ctx.actor, databaseIdOf(input.versionId, 'TemplateVersion', 'input.versionId')),
        ),
      }),
    },
    UserSkill: {
      user: (g: PresentedUserSkill, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders
          .user(userColumns.of(info))
          .load(g.userId)
          .then((u) => u ?? null),
      skill: async (g: PresentedUserSkill, _: unknown, ctx: Ctx) => {
        const skill = await ctx.loaders.skill.load(g.skillId);
        return skill && presentSkill(skill);
      },
      grantedBy: (g: PresentedUserSkill, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders
          .user(userColumns.of(info))
          .load(g.grantedById)
          .then((u) => u ?? null),
      trainedBy: (g: PresentedUserSkill, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        g.trainerId === null
          ? null
          : ctx.loaders
              .user(userColumns.of(info))
              .load(g.trainerId)
              .then((u) => u ?? null),
      expired: (g: PresentedUserSkill, _: unknown, ctx: Ctx) => userSkillExpired(ctx.deps, g),
    },
    SkillMatrixRow: {
      user: (row: { userId: number }, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders.user(userColumns.of(info)).load(row.userId),
    },
    Content: {
      qualifications: (content: { qualifications?: SkillRequirement[] }) => content.qualifications ?? [],
    },
    StepSignoff: {
      skills: (signoff: { skills?: SkillRequirement[] }) => signoff.skills ?? [],
    },
    VersionDiff: {
      qualificationsChanged: (diff: { qualifications?: unknown }) => diff.qualifications !== undefined,
    },
    QualificationOverride: {
      user: (o: PresentedOverride, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders
          .user(userColumns.of(info))
          .load(o.userId)
          .then((u) => u ?? null),
      job: async (o: PresentedOverride, _: unknown, ctx: Ctx) => {
        if (o.jobId === null) return null;
        const job = await ctx.loaders.job.load(o.jobId);
        return job ? presentJob(job) : null;
      },
      template: (o: PresentedOverride, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders
          .template(templateColumns.of(info))
          .load(o.templateId)
          .then((t) => t ?? null),
      version: (o: PresentedOverride, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders
          .version(versionColumns.of(info))
          .load(o.versionId)
          .then((v) => v ?? null),
      overriddenBy: (o: PresentedOverride, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders
          .user(userColumns.of(info))
          .load(o.overriddenById)
          .then((u) => u ?? null),
    },
    Retraining: {
      template: (r: PresentedRetraining, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders
          .template(templateColumns.of(info))
          .load(r.templateId)
          .then((t) => t ?? null),
      version: (r: PresentedRetraining, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders
          .version(versionColumns.of(info))
          .load(r.versionId)
          .then((v) => v ?? null),
      previousVersion: (r: PresentedRetraining, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders
          .version(versionColumns.of(info))
          .load(r.previousVersionId)
          .then((v) => v ?? null),
    },
  },
};

import { z } from 'zod';
import type { Deps } from '#deps';
import { withTransaction } from '#db/transaction';
import { notFound } from '#errors';
import { ROLES } from '#policies/roles';
import { insertTutorialCompletion, tutorialCompletions } from '#repos/tutorials';
// A static import: tsc copies the JSON into dist and esbuild inlines it into the
// single executable, so the catalogue ships with the build and needs no file at run time.
import shipped from '../../config/tutorials.json';
import type { UserActor } from './actor';

const Catalogue = z
  .object({
    tutorials: z.array(
      z
        .object({
          id: z.string().regex(/^[a-z0-9-]{1,64}$/),
          title: z.string().min(1),
          description: z.string(),
          /** the roles the tutorial is meant for (the client may show it first to them) */
          roles: z.array(z.enum(ROLES)),
          estimatedMinutes: z.number().int().positive(),
        })
        .strict(),
    ),
  })
  .strict()
  .refine((c) => new Set(c.tutorials.map((t) => t.id)).size === c.tutorials.length, 'tutorial ids must be unique');

export type Tutorial = z.infer<typeof Catalogue>['tutorials'][number];

let catalogue: readonly Tutorial[] | undefined;

/** The tutorial catalogue shipped in the build (config/tutorials.json), checked once. */
export function tutorialCatalogue(): readonly Tutorial[] {
  catalogue ??= Catalogue.parse(shipped).tutorials;
  return catalogue;
}

export interface TutorialState extends Tutorial {
  completed: boolean;
  completedAt: string | null;
  /** meant for one of the caller's roles */
  forYou: boolean;
}

function withState(tutorial: Tutorial, roles: readonly string[], completions: Map<string, string>): TutorialState {
  const completedAt = completions.get(tutorial.id) ?? null;
  return { ...tutorial, completed: completedAt !== null, completedAt, forYou: tutorial.roles.some((r) => roles.includes(r)) };
}

/** Every tutorial of the build with the caller's completion state. */
export async function tutorialsInfo(deps: Deps, actor: UserActor): Promise<TutorialState[]> {
  const completions = await tutorialCompletions(deps.db.kysely, actor.scope, actor.userId);
  return tutorialCatalogue().map((t) => withState(t, actor.roles, completions));
}

/**
 * Marks a tutorial completed for the caller; completing it again changes
 * nothing (the first completion time stays).
 * @throws AppError NOT_FOUND for an id not in the shipped catalogue
 */
export async function completeTutorial(deps: Deps, actor: UserActor, tutorialId: string): Promise<TutorialState> {
  const tutorial = tutorialCatalogue().find((t) => t.id === tutorialId);
  if (!tutorial) throw notFound('Tutorial');
  const completions = await withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    await insertTutorialCompletion(trx, actor.scope, actor.userId, tutorialId, deps.clock.now().toISOString());
    return tutorialCompletions(trx, actor.scope, actor.userId);
  });
  return withState(tutorial, actor.roles, completions);
}

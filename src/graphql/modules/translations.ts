import DataLoader from 'dataloader';
import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import { databaseIdOf } from '../ids';
import type { Content } from '#domain/content';
import type { LocalizedContent } from '#domain/translations';
import type { PresentedVersion, PresentedVersionSummary } from '#presenters/templates';
import {
  approveTranslation,
  contentInLanguage,
  operatorLanguages,
  translationsOfVersions,
  type TranslationView,
} from '#services/translations';

/**
 * Translated instructions (docs/translated-instructions.md): a version's
 * translations with each text's state, their approval, and the content in the
 * language an operator asks for (TemplateVersion.content(language:), resolved
 * in the templates module through contentIn below).
 */
type Ctx = GraphQLContext;

/** One loader per request: the translations of every version a query reads, in one statement. */
const translationLoaders = new WeakMap<Ctx, DataLoader<number, TranslationView[]>>();
function translationsLoader(ctx: Ctx): DataLoader<number, TranslationView[]> {
  let loader = translationLoaders.get(ctx);
  if (!loader) {
    loader = new DataLoader(async (ids: readonly number[]) => {
      const contents = (await ctx.loaders.versionContent.loadMany(ids)).filter(
        (c): c is { id: number; content: Content } => Boolean(c) && !(c instanceof Error),
      );
      const byVersion = await translationsOfVersions(ctx.deps.db.kysely, ctx.scope, contents);
      return ids.map((id) => byVersion.get(id) ?? []);
    });
    translationLoaders.set(ctx, loader);
  }
  return loader;
}

/**
 * A version's content as TemplateVersion.content answers it: the source when no
 * language is asked for (authors edit the source: a translated copy must never
 * be saved over it), else the best approved translation of the language and
 * its less specific forms (de-AT, de), text by text over the source.
 */
export async function contentIn(
  ctx: Ctx,
  versionId: number,
  content: Content,
  language: string | null | undefined,
): Promise<LocalizedContent & { language: string | null }> {
  if (language == null) return { ...content, language: null };
  const localized = await contentInLanguage(ctx.deps.db.kysely, ctx.scope, versionId, content, operatorLanguages(language, null));
  return { ...localized.content, language: localized.language };
}

export const translationsModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    "Where a text of a version stands in one translation."
    enum TranslationUnitState {
      "translated from the version's current text"
      TRANSLATED
      "translated from a text the version no longer has: operators read the source until it is translated again"
      STALE
      "not translated"
      MISSING
    }

    "One text of the version (a unit of its XLIFF file) in one translation."
    type TranslationUnit {
      "the XLIFF unit id: sec:<sectionId>:title, step:<stepId>:title, step:<stepId>:body, field:<stepId>:<key>:label, option:<stepId>:<key>:<n>"
      unitId: String!
      "section-title, step-title, step-body, field-label or option-label"
      kind: String!
      source: String!
      "the translation as stored (also when STALE); null when MISSING"
      target: String
      state: TranslationUnitState!
    }

    type TranslationCounts {
      translated: Int!
      stale: Int!
      missing: Int!
    }

    "A version's translation into one language, kept beside the version with its own approval (docs/decisions/0009)."
    type VersionTranslation {
      "BCP 47"
      language: String!
      "approved as its units are now: only approved translations are shown to operators"
      approved: Boolean!
      approverName: String
      approvedAt: DateTime
      "SHA-256 of the translation's units: what an approval signs"
      unitsHash: String!
      updatedAt: DateTime!
      counts: TranslationCounts!
      "every text of the version, in reading order (a list bounded by the document's limits)"
      units: [TranslationUnit!]!
    }

    extend type TemplateVersion {
      "the version's translations, one per language, by language (a list: one per language translated)"
      translations: [VersionTranslation!]!
    }

    extend type Content {
      "the language the texts are in: null for the source, else the approved translation used (content(language:))"
      language: String
    }

    extend type Field {
      "the options as shown in the language asked for (content(language:)); options stay the values recorded"
      optionLabels: [String!]
    }

    "an electronic signature: the approver's password, or a current TOTP code for a user with two-factor"
    input ApproveTranslationInput {
      versionId: ID!
      "BCP 47"
      language: String!
      password: String
      code: String
    }

    type ApproveTranslationPayload {
      translation: VersionTranslation!
    }

    extend type Mutation {
      """
      Approves a version's translation as it is now (signed, by the roles that approve versions, not by whoever last
      imported it unless the client allows self-approval): operators are then shown it.
      """
      approveTranslation(input: ApproveTranslationInput!): ApproveTranslationPayload!
    }
  `,
  resolvers: {
    Mutation: {
      approveTranslation: async (
        _root,
        { input }: { input: { versionId: string; language: string; password?: string | null; code?: string | null } },
        ctx: Ctx,
      ) => {
        const versionId = databaseIdOf(input.versionId, 'TemplateVersion', 'input.versionId');
        const translation = await approveTranslation(ctx.deps, ctx.actor, versionId, input.language, input, ctx.meta);
        return { translation };
      },
    },
    TemplateVersion: {
      translations: (v: PresentedVersion | PresentedVersionSummary, _args, ctx: Ctx) => translationsLoader(ctx).load(v.id),
    },
    VersionTranslation: {
      units: (t: TranslationView) => t.units.map((u) => ({ ...u, state: u.state.toUpperCase() })),
    },
  },
};

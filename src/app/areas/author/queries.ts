import { globalId } from '../../api/client';
import { serverHasNotApplicable } from '../../api/features';
import type { EditorField, EditorSignoff, SkillRequirement, StepModel } from './model';
import type { VersionState } from '../../../domain/vocabulary';

/**
 * The GraphQL the author screens speak (the templates module,
 * src/graphql/modules/templates.ts). URLs carry database ids; GraphQL takes
 * global ids (`Template:12`).
 */

export const templateGid = (id: number) => globalId('Template', id);
export const versionGid = (id: number) => globalId('TemplateVersion', id);
export const assetClassGid = (id: number) => globalId('AssetClass', id);

export { VERSION_STATES, type VersionState } from '../../../domain/vocabulary';

export interface FileInfo {
  databaseId: number;
  name: string;
  contentType: string;
  url: string;
  size: number;
}

export interface LibraryItem {
  databaseId: number;
  title: string;
  description: string;
  tags: string[];
  assetClass: { name: string } | null;
  updatedAt: string;
  latestVersion: { databaseId: number; number: number; state: VersionState; updatedAt: string };
  publishedVersion: { number: number } | null;
}

export const LIBRARY = /* GraphQL */ `
  query AuthorLibrary($first: Int!, $after: String, $filter: TemplateFilter) {
    templates(first: $first, after: $after, filter: $filter) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      nodes {
        databaseId
        title
        description
        tags
        updatedAt
        assetClass {
          name
        }
        latestVersion {
          databaseId
          number
          state
          updatedAt
        }
        publishedVersion {
          number
        }
      }
    }
  }
`;

export const ASSET_CLASSES = /* GraphQL */ `
  query AuthorAssetClasses {
    assetClasses(first: 200) {
      nodes {
        databaseId
        name
      }
    }
  }
`;

export const SENSORS = /* GraphQL */ `
  query AuthorSensors {
    sensors(first: 200) {
      nodes {
        databaseId
        name
        unit
      }
    }
  }
`;

const FIELD = 'key label type required unit min max options sensorId expression';
const SIGNOFF = 'signoff { performer verifier { roles } skills { skill level } }';
/** A step as the author's preview shows it (StepView), with its files: the review page reads the same. */
export const STEP = `stepId title body media model { fileId anchorPose { position rotation } file { databaseId name contentType url size } }
  mediaFiles { databaseId name contentType url size } fields { ${FIELD} } when ${SIGNOFF}`;

/** A document reading steps, with `allowNotApplicable` selected where the server has it (api/features.ts). */
export async function withServerFields(document: string): Promise<string> {
  return (await serverHasNotApplicable()) ? document.replaceAll(SIGNOFF, `${SIGNOFF} allowNotApplicable`) : document;
}

export interface ServerStep {
  stepId: string;
  title: string;
  body: string;
  media: number[];
  model: (StepModel & { file: FileInfo | null }) | null;
  mediaFiles: FileInfo[];
  fields: Omit<EditorField, 'uid' | 'keyFollowsLabel'>[];
  when: unknown;
  signoff: EditorSignoff | null;
  allowNotApplicable?: boolean | null;
}

export interface VersionDetail {
  databaseId: number;
  number: number;
  state: VersionState;
  revision: number;
  rejectReason: string | null;
  updatedAt: string;
  updatedBy: { databaseId: number; firstName: string; lastName: string; email: string } | null;
  content: {
    qualifications?: SkillRequirement[];
    sections: { sectionId: string; title: string; when: unknown; steps: ServerStep[] }[];
  };
}

const VERSION = `databaseId number state revision rejectReason updatedAt
  updatedBy { databaseId firstName lastName email }
  content { qualifications { skill level } sections { sectionId title when steps { ${STEP} } } }`;

export interface TemplateDetail {
  databaseId: number;
  title: string;
  description: string;
  tags: string[];
  assetClass: { databaseId: number; name: string } | null;
  owner: { databaseId: number } | null;
  versions: { nodes: { databaseId: number; number: number; state: VersionState; updatedAt: string; rejectReason: string | null }[] };
  latestVersion: VersionDetail;
  publishedVersion: { databaseId: number; number: number } | null;
}

export const TEMPLATE = /* GraphQL */ `
  query AuthorTemplate($id: ID!) {
    template(id: $id) {
      databaseId title description tags
      assetClass { databaseId name }
      owner { databaseId }
      versions(first: 200) { nodes { databaseId number state updatedAt rejectReason } }
      latestVersion { ${VERSION} }
      publishedVersion { databaseId number }
    }
  }
`;

export const VERSION_QUERY = /* GraphQL */ `
  query AuthorVersion($id: ID!) { templateVersion(id: $id) { ${VERSION} } }
`;

export const CREATE_TEMPLATE = /* GraphQL */ `
  mutation AuthorCreateTemplate($input: CreateTemplateInput!) {
    createTemplate(input: $input) {
      template {
        databaseId
      }
      version {
        databaseId
      }
    }
  }
`;

export const UPDATE_TEMPLATE = /* GraphQL */ `
  mutation AuthorUpdateTemplate($input: UpdateTemplateInput!) {
    updateTemplate(input: $input) {
      template {
        databaseId
        title
        description
        tags
        assetClass {
          databaseId
          name
        }
      }
    }
  }
`;

export const CREATE_DRAFT = /* GraphQL */ `
  mutation AuthorCreateDraft($id: ID!) {
    createDraft(input: { templateId: $id }) {
      version {
        databaseId
        number
      }
    }
  }
`;

export const UPDATE_DRAFT = /* GraphQL */ `
  mutation AuthorSaveDraft($id: ID!, $content: ContentInput!, $revision: Int!) {
    updateDraft(input: { versionId: $id, content: $content, expectedRevision: $revision }) {
      version {
        revision
        updatedAt
      }
    }
  }
`;

export const SUBMIT = /* GraphQL */ `
  mutation AuthorSubmit($id: ID!) {
    submitVersion(input: { versionId: $id }) {
      version {
        databaseId
        state
        revision
      }
    }
  }
`;

/** The server's step (with its files) → the editor's, and the files it names. */
export function filesOf(content: VersionDetail['content']): Map<number, FileInfo> {
  const files = new Map<number, FileInfo>();
  for (const section of content.sections) {
    for (const step of section.steps) {
      for (const file of step.mediaFiles) files.set(file.databaseId, file);
      if (step.model?.file) files.set(step.model.file.databaseId, step.model.file);
    }
  }
  return files;
}

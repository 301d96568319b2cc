import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ApiError, graphql as gql } from '../../api/client';
import { fromServer } from './model';
import {
  ASSET_CLASSES,
  assetClassGid,
  CREATE_DRAFT,
  filesOf,
  SUBMIT,
  TEMPLATE,
  templateGid,
  UPDATE_TEMPLATE,
  versionGid,
  withServerFields,
  type TemplateDetail,
} from './queries';
import { Preview } from './preview';
import { TranslationsPanel } from './translations-panel';
import { appPath } from './paths';
import { useI18n, useT } from '../../i18n';

/**
 * A template (/app/templates/:id): its details, its versions, and what an
 * author does next — edit or submit the draft, or start a new draft from the
 * latest version — with a preview of the latest version as operators see it.
 */
export default function TemplatePage({ id }: { id: string }) {
  const { t, format } = useI18n();
  const templateId = Number(id);
  const { url, route } = useLocation();
  const submitted = new URL(url, location.origin).searchParams.get('submitted') === '1';
  const [template, setTemplate] = useState<TemplateDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  const reload = () =>
    withServerFields(TEMPLATE)
      .then((document) => gql<{ template: TemplateDetail | null }>(document, { id: templateGid(templateId) }))
      .then((d) => (d.template ? setTemplate(d.template) : setError(t('author.notFound'))))
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void reload();
  }, [templateId]);
  useEffect(() => {
    if (submitted && template) setNotice(t('author.template.submitted', { number: template.latestVersion.number }));
  }, [submitted, template?.databaseId]);

  if (error && !template)
    return (
      <div class="page">
        <h1>{t('author.template.heading')}</h1>
        <p class="notice notice-danger" role="alert">
          {error}
        </p>
      </div>
    );
  if (!template)
    return (
      <p class="loading" role="status">
        {t('author.loading')}
      </p>
    );

  const latest = template.latestVersion;

  async function newDraft() {
    setBusy(true);
    setError(null);
    try {
      await gql(CREATE_DRAFT, { id: templateGid(templateId) });
      route(appPath(`/templates/${templateId}/edit`));
    } catch (e) {
      // a draft exists already (someone started one): edit that one
      if (e instanceof ApiError && e.code === 'CONFLICT') route(appPath(`/templates/${templateId}/edit`));
      else setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  async function submit() {
    setBusy(true);
    setError(null);
    try {
      await gql(SUBMIT, { id: versionGid(latest.databaseId) });
      setNotice(t('author.template.submitted', { number: latest.number }));
      await reload();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div class="page author-template">
      <header class="page-header">
        <div>
          <p class="eyebrow">
            <a href={appPath('/templates')}>{t('author.library.heading')}</a>
          </p>
          <h1>{template.title}</h1>
          <p>
            <span class={`badge state-${latest.state.toLowerCase()}`}>
              {t('author.library.versionState', { number: latest.number, state: t(`author.state.${latest.state}`) })}
            </span>
          </p>
        </div>
        <div class="page-actions">
          {latest.state === 'DRAFT' && (
            <>
              <a class="btn btn-primary" href={appPath(`/templates/${templateId}/edit`)}>
                {t('author.template.editDraft')}
              </a>
              <button type="button" class="btn btn-secondary" onClick={() => void submit()} disabled={busy}>
                {t('author.editor.submit')}
              </button>
            </>
          )}
          {(latest.state === 'APPROVED' || latest.state === 'PUBLISHED' || latest.state === 'RETIRED') && (
            <button type="button" class="btn btn-primary" onClick={() => void newDraft()} disabled={busy}>
              {t('author.template.newDraft', { number: latest.number })}
            </button>
          )}
        </div>
      </header>
      {notice && (
        <p class="notice notice-success" role="status">
          {notice}
        </p>
      )}
      {error && (
        <p class="notice notice-danger" role="alert">
          {error}
        </p>
      )}
      {latest.state === 'DRAFT' && latest.rejectReason && (
        <p class="notice notice-warning">
          <strong>{t('author.editor.rejected')}</strong> {latest.rejectReason}
        </p>
      )}
      {latest.state === 'IN_REVIEW' && <p class="notice notice-info">{t('author.template.inReview')}</p>}

      <div class="two-columns">
        <Details template={template} onSaved={reload} />
        <section class="card" aria-labelledby="versions-heading">
          <h2 id="versions-heading">{t('author.template.versions')}</h2>
          <table class="table">
            <thead>
              <tr>
                <th scope="col">{t('author.template.version')}</th>
                <th scope="col">{t('author.library.state')}</th>
                <th scope="col">{t('author.template.updated')}</th>
              </tr>
            </thead>
            <tbody>
              {[...template.versions.nodes].reverse().map((v) => (
                <tr key={v.databaseId}>
                  <td>{v.number}</td>
                  <td>{t(`author.state.${v.state}`)}</td>
                  <td>{format.dateTime(v.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </div>

      <TranslationsPanel templateId={templateId} versionId={latest.databaseId} versionNumber={latest.number} />

      <section aria-labelledby="latest-preview-heading">
        <h2 id="latest-preview-heading">{t('author.template.previewOf', { number: latest.number })}</h2>
        <Preview content={fromServer(latest.content)} files={filesOf(latest.content)} sensors={[]} />
      </section>
    </div>
  );
}

/** Title, description, tags and asset class (updateTemplate), saved with a button: they are not part of a version. */
function Details({ template, onSaved }: { template: TemplateDetail; onSaved: () => Promise<unknown> }) {
  const t = useT();
  const [title, setTitle] = useState(template.title);
  const [description, setDescription] = useState(template.description);
  const [tags, setTags] = useState(template.tags.join(', '));
  const [assetClassId, setAssetClassId] = useState(template.assetClass ? String(template.assetClass.databaseId) : '');
  const [assetClasses, setAssetClasses] = useState<{ databaseId: number; name: string }[]>([]);
  const [state, setState] = useState<{ busy: boolean; message: string | null; error: string | null; problems: Map<string, string> }>({
    busy: false,
    message: null,
    error: null,
    problems: new Map(),
  });
  useEffect(() => {
    gql<{ assetClasses: { nodes: { databaseId: number; name: string }[] } }>(ASSET_CLASSES)
      .then((d) => setAssetClasses(d.assetClasses.nodes))
      .catch(() => setAssetClasses([]));
  }, []);

  async function save(event: Event) {
    event.preventDefault();
    setState({ busy: true, message: null, error: null, problems: new Map() });
    try {
      await gql(UPDATE_TEMPLATE, {
        input: {
          templateId: templateGid(template.databaseId),
          title,
          description,
          tags: tags
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean),
          assetClassId: assetClassId ? assetClassGid(Number(assetClassId)) : null,
        },
      });
      await onSaved();
      setState({ busy: false, message: t('author.template.detailsSaved'), error: null, problems: new Map() });
    } catch (e) {
      const fields = e instanceof ApiError ? e.fields : [];
      setState({
        busy: false,
        message: null,
        error: (e as Error).message,
        problems: new Map(fields.map((f) => [f.path.replace(/^input\./, ''), f.message])),
      });
    }
  }
  const problem = (name: string) =>
    state.problems.has(name) && (
      <p class="field-error" id={`details-${name}-error`}>
        {state.problems.get(name)}
      </p>
    );
  const described = (name: string) =>
    state.problems.has(name) ? { 'aria-invalid': true, 'aria-describedby': `details-${name}-error` } : {};

  return (
    <form class="card" onSubmit={(event) => void save(event)} aria-labelledby="details-heading">
      <h2 id="details-heading">{t('author.template.details')}</h2>
      <div class="form-row">
        <label for="details-title">{t('author.template.title')}</label>
        <input
          id="details-title"
          type="text"
          required
          maxLength={500}
          value={title}
          onInput={(e) => setTitle(e.currentTarget.value)}
          {...described('title')}
        />
        {problem('title')}
      </div>
      <div class="form-row">
        <label for="details-description">{t('author.template.description')}</label>
        <textarea
          id="details-description"
          rows={3}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
          {...described('description')}
        />
        {problem('description')}
      </div>
      <div class="form-row">
        <label for="details-tags">{t('author.template.tags')}</label>
        <input
          id="details-tags"
          type="text"
          value={tags}
          onInput={(e) => setTags(e.currentTarget.value)}
          aria-describedby="details-tags-hint"
          {...described('tags')}
        />
        <p class="hint" id="details-tags-hint">
          {t('author.template.tagsHint')}
        </p>
        {problem('tags')}
      </div>
      <div class="form-row">
        <label for="details-asset-class">{t('author.template.assetClass')}</label>
        <select id="details-asset-class" value={assetClassId} onChange={(e) => setAssetClassId(e.currentTarget.value)}>
          <option value="">{t('author.template.noAssetClass')}</option>
          {assetClasses.map((a) => (
            <option value={String(a.databaseId)} key={a.databaseId}>
              {a.name}
            </option>
          ))}
        </select>
      </div>
      {state.error && (
        <p class="notice notice-danger" role="alert">
          {state.error}
        </p>
      )}
      {state.message && (
        <p class="notice notice-success" role="status">
          {state.message}
        </p>
      )}
      <button type="submit" class="btn btn-secondary" disabled={state.busy}>
        {t('author.template.saveDetails')}
      </button>
    </form>
  );
}

import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { graphql as gql } from '../../api/client';
import { ASSET_CLASSES, assetClassGid, CREATE_TEMPLATE, LIBRARY, VERSION_STATES, type LibraryItem, type VersionState } from './queries';
import { appPath } from './paths';
import { useI18n, useT } from '../../i18n';

/**
 * The template library (/app/templates): search, tag, asset class, state and
 * "needs my action" (the API's TemplateFilter), a page at a time; and a new
 * template, which opens straight in the editor.
 */
interface Filter {
  search: string;
  tag: string;
  assetClassId: string;
  state: string;
  mine: boolean;
}

const PAGE = 25;

export default function LibraryPage() {
  const { t, format } = useI18n();
  const { url } = useLocation();
  const initial = new URL(url, location.origin).searchParams;
  const [filter, setFilter] = useState<Filter>({
    search: initial.get('search') ?? '',
    tag: initial.get('tag') ?? '',
    assetClassId: initial.get('assetClass') ?? '',
    state: initial.get('state') ?? '',
    mine: initial.get('mine') === '1',
  });
  const [items, setItems] = useState<LibraryItem[] | null>(null);
  const [total, setTotal] = useState(0);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [assetClasses, setAssetClasses] = useState<{ databaseId: number; name: string }[]>([]);
  const [creating, setCreating] = useState(false);
  const request = useRef(0);

  useEffect(() => {
    gql<{ assetClasses: { nodes: { databaseId: number; name: string }[] } }>(ASSET_CLASSES)
      .then((d) => setAssetClasses(d.assetClasses.nodes))
      .catch(() => setAssetClasses([]));
  }, []);

  const apiFilter = () => ({
    ...(filter.search.trim() && { search: filter.search.trim() }),
    ...(filter.tag.trim() && { tag: filter.tag.trim() }),
    ...(filter.assetClassId && { assetClassId: assetClassGid(Number(filter.assetClassId)) }),
    ...(filter.state && { state: filter.state as VersionState }),
    ...(filter.mine && { needsMyAction: true }),
  });

  async function load(after: string | null) {
    const mine = ++request.current;
    setError(null);
    try {
      const data = await gql<{
        templates: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: LibraryItem[] };
      }>(LIBRARY, { first: PAGE, after, filter: apiFilter() });
      if (mine !== request.current) return; // a newer search answered first
      setItems((list) => (after ? [...(list ?? []), ...data.templates.nodes] : data.templates.nodes));
      setTotal(data.templates.totalCount);
      setNext(data.templates.pageInfo.hasNextPage ? data.templates.pageInfo.endCursor : null);
    } catch (e) {
      if (mine === request.current) setError((e as Error).message);
    }
  }

  // typing settles for a moment before the search runs; the URL keeps the filter (a link to it works)
  useEffect(() => {
    const timer = setTimeout(() => {
      void load(null);
      const params = new URLSearchParams();
      if (filter.search) params.set('search', filter.search);
      if (filter.tag) params.set('tag', filter.tag);
      if (filter.assetClassId) params.set('assetClass', filter.assetClassId);
      if (filter.state) params.set('state', filter.state);
      if (filter.mine) params.set('mine', '1');
      const query = params.toString();
      const here = appPath('/templates');
      // only while still here: a link followed in the meantime has already moved the address on,
      // and writing this one back would leave another page under the library's URL
      if (location.pathname === here && location.search !== (query ? `?${query}` : '')) {
        history.replaceState(history.state, '', `${here}${query ? `?${query}` : ''}`);
      }
    }, 250);
    return () => clearTimeout(timer);
  }, [filter]);

  const set = (change: Partial<Filter>) => setFilter((f) => ({ ...f, ...change }));

  return (
    <div class="page author-library">
      <header class="page-header">
        <h1>{t('author.library.heading')}</h1>
        <div class="page-actions">
          <button
            type="button"
            class="btn btn-primary"
            onClick={() => setCreating(true)}
            aria-expanded={creating}
            aria-controls="new-template"
          >
            {t('author.library.new')}
          </button>
        </div>
      </header>
      {creating && <NewTemplate assetClasses={assetClasses} onCancel={() => setCreating(false)} />}
      <form class="filters" role="search" aria-label={t('author.library.filters')} onSubmit={(e) => e.preventDefault()}>
        <div class="form-row">
          <label for="library-search">{t('author.library.search')}</label>
          <input id="library-search" type="search" value={filter.search} onInput={(e) => set({ search: e.currentTarget.value })} />
        </div>
        <div class="form-row">
          <label for="library-tag">{t('author.library.tag')}</label>
          <input id="library-tag" type="text" value={filter.tag} onInput={(e) => set({ tag: e.currentTarget.value })} />
        </div>
        <div class="form-row">
          <label for="library-asset-class">{t('author.library.assetClass')}</label>
          <select id="library-asset-class" value={filter.assetClassId} onChange={(e) => set({ assetClassId: e.currentTarget.value })}>
            <option value="">{t('author.library.any')}</option>
            {assetClasses.map((a) => (
              <option value={String(a.databaseId)} key={a.databaseId}>
                {a.name}
              </option>
            ))}
          </select>
        </div>
        <div class="form-row">
          <label for="library-state">{t('author.library.state')}</label>
          <select id="library-state" value={filter.state} onChange={(e) => set({ state: e.currentTarget.value })}>
            <option value="">{t('author.library.any')}</option>
            {VERSION_STATES.map((s) => (
              <option value={s} key={s}>
                {t(`author.state.${s}`)}
              </option>
            ))}
          </select>
        </div>
        <div class="form-row checkbox-row">
          <input id="library-mine" type="checkbox" checked={filter.mine} onChange={(e) => set({ mine: e.currentTarget.checked })} />
          <label for="library-mine">{t('author.library.needsMyAction')}</label>
        </div>
      </form>

      {error && (
        <p class="notice notice-danger" role="alert">
          {error}
        </p>
      )}
      <p class="muted" role="status" aria-live="polite">
        {items === null ? t('author.loading') : t('author.library.count', { count: total })}
      </p>
      {items !== null && items.length === 0 && <Empty filter={filter} onCreate={creating ? null : () => setCreating(true)} />}
      {items && items.length > 0 && (
        <ul class="template-list" aria-label={t('author.library.results')}>
          {items.map((item) => (
            <li key={item.databaseId} class="card template-card">
              <h2 class="template-card-title">
                <a href={appPath(`/templates/${item.databaseId}`)}>{item.title}</a>
              </h2>
              {item.description && <p class="template-card-description">{item.description}</p>}
              <p class="template-card-meta">
                <span class={`badge state-${item.latestVersion.state.toLowerCase()}`}>
                  {t('author.library.versionState', {
                    number: item.latestVersion.number,
                    state: t(`author.state.${item.latestVersion.state}`),
                  })}
                </span>
                {item.publishedVersion && item.latestVersion.state !== 'PUBLISHED' && (
                  <span class="badge">{t('author.library.published', { number: item.publishedVersion.number })}</span>
                )}
                {item.assetClass && <span class="badge">{item.assetClass.name}</span>}
                {item.tags.map((tag) => (
                  <span class="tag" key={tag}>
                    #{tag}
                  </span>
                ))}
              </p>
              <p class="muted">{t('author.library.updated', { when: format.dateTime(item.latestVersion.updatedAt) })}</p>
            </li>
          ))}
        </ul>
      )}
      {next && (
        <button type="button" class="btn btn-secondary" onClick={() => void load(next)}>
          {t('author.library.more')}
        </button>
      )}
    </div>
  );
}

/**
 * An empty result says why: nothing waits for the user, nothing matches the
 * search or filters — or the client has no templates at all yet, with the way to write the first.
 */
function Empty({ filter, onCreate }: { filter: Filter; onCreate: (() => void) | null }) {
  const t = useT();
  if (filter.mine) return <p class="empty">{t('author.library.nothingWaits')}</p>;
  if (filter.search.trim()) return <p class="empty">{t('author.library.noMatch', { search: filter.search.trim() })}</p>;
  if (filter.tag.trim() || filter.assetClassId || filter.state) return <p class="empty">{t('author.library.noMatchFilters')}</p>;
  return (
    <div class="empty empty-library">
      <h2>{t('author.library.noneYet')}</h2>
      <p>{t('author.library.noneYetText')}</p>
      {onCreate && (
        <button type="button" class="btn btn-primary" onClick={onCreate}>
          {t('author.library.createFirst')}
        </button>
      )}
    </div>
  );
}

function NewTemplate({ assetClasses, onCancel }: { assetClasses: { databaseId: number; name: string }[]; onCancel: () => void }) {
  const t = useT();
  const { route } = useLocation();
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [tags, setTags] = useState('');
  const [assetClassId, setAssetClassId] = useState('');
  const [problems, setProblems] = useState<Map<string, string>>(new Map());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const titleRef = useRef<HTMLInputElement>(null);
  useEffect(() => titleRef.current?.focus(), []);

  async function create(event: Event) {
    event.preventDefault();
    // the one required input: said at the input, before asking the server
    if (!title.trim()) {
      setProblems(new Map([['title', t('author.library.titleRequired')]]));
      setError(null);
      titleRef.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const data = await gql<{ createTemplate: { template: { databaseId: number } } }>(CREATE_TEMPLATE, {
        input: {
          title,
          description,
          tags: tags
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean),
          ...(assetClassId && { assetClassId: assetClassGid(Number(assetClassId)) }),
          // a first section and step to write into: a template is steps
          content: {
            sections: [
              { title: t('author.section.defaultTitle', { number: 1 }), steps: [{ title: t('author.step.defaultTitle', { number: 1 }) }] },
            ],
          },
        },
      });
      route(appPath(`/templates/${data.createTemplate.template.databaseId}/edit`));
    } catch (e) {
      const failure = e as { fields?: { path: string; message: string }[]; message: string };
      setProblems(new Map((failure.fields ?? []).map((f) => [f.path.replace(/^input\./, ''), f.message])));
      setError(failure.message);
    } finally {
      setBusy(false);
    }
  }

  const described = (name: string) => (problems.has(name) ? { 'aria-invalid': true, 'aria-describedby': `new-${name}-error` } : {});
  const problem = (name: string) =>
    problems.has(name) && (
      <p class="field-error" id={`new-${name}-error`}>
        {problems.get(name)}
      </p>
    );

  return (
    <form
      id="new-template"
      class="card new-template"
      noValidate
      onSubmit={(event) => void create(event)}
      aria-labelledby="new-template-heading"
    >
      <h2 id="new-template-heading">{t('author.library.newHeading')}</h2>
      <p class="hint">{t('author.library.requiredNote')}</p>
      {error && (
        <p class="notice notice-danger" role="alert">
          {error}
        </p>
      )}
      <div class="form-row">
        {/* the marker beside the label, not in it: the input's name stays "Title" */}
        <div class="label-line">
          <label for="new-title">{t('author.template.title')}</label>
          <span class="required" aria-hidden="true">
            *
          </span>
        </div>
        <input
          id="new-title"
          ref={titleRef}
          type="text"
          required
          maxLength={500}
          value={title}
          onInput={(e) => setTitle(e.currentTarget.value)}
          aria-required="true"
          {...described('title')}
        />
        {problem('title')}
      </div>
      <div class="form-row">
        <label for="new-description">{t('author.template.description')}</label>
        <textarea
          id="new-description"
          rows={2}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
          {...described('description')}
        />
        {problem('description')}
      </div>
      <div class="form-row">
        <label for="new-tags">{t('author.template.tags')}</label>
        <input id="new-tags" type="text" value={tags} onInput={(e) => setTags(e.currentTarget.value)} aria-describedby="new-tags-hint" />
        <p class="hint" id="new-tags-hint">
          {t('author.template.tagsHint')}
        </p>
        {problem('tags')}
      </div>
      <div class="form-row">
        <label for="new-asset-class">{t('author.template.assetClass')}</label>
        <select id="new-asset-class" value={assetClassId} onChange={(e) => setAssetClassId(e.currentTarget.value)}>
          <option value="">{t('author.template.noAssetClass')}</option>
          {assetClasses.map((a) => (
            <option value={String(a.databaseId)} key={a.databaseId}>
              {a.name}
            </option>
          ))}
        </select>
      </div>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {t('author.library.create')}
        </button>
        <button type="button" class="btn btn-secondary" onClick={onCancel}>
          {t('author.cancel')}
        </button>
      </div>
    </form>
  );
}

import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { graphql as gql } from '../../api/client';
import { Autosave, type AutosaveState } from './autosave';
import {
  fromServer,
  inputId,
  LIMITS,
  moved,
  newSection,
  newStep,
  pathOf,
  problemPath,
  stepsInOrder,
  toInput,
  type EditorContent,
  type EditorSection,
  type EditorStep,
  type StepAt,
} from './model';
import {
  filesOf,
  SENSORS,
  SUBMIT,
  TEMPLATE,
  templateGid,
  UPDATE_DRAFT,
  VERSION_QUERY,
  versionGid,
  withServerFields,
  type FileInfo,
  type TemplateDetail,
  type VersionDetail,
} from './queries';
import { serverHasNotApplicable } from '../../api/features';
import { Reorder, ReorderHelp } from './Reorder';
import { StepEditor } from './StepEditor';
import { ErrorText } from './problems';
import { Preview } from './Preview';
import { ConditionEditor } from './ConditionEditor';
import { ConflictDialog } from './ConflictDialog';
import { useAnnouncer } from './announce';
import { appPath } from './paths';
import { useI18n, useT, type Translate } from '../../i18n';

/**
 * The draft editor (/app/templates/:id/edit): sections → steps → fields,
 * every change autosaved with the draft's revision (autosave.ts). A save
 * refused because someone else saved first opens the conflict dialog; a
 * save refused as invalid shows each problem at its input and in a summary.
 */
export default function EditorPage({ id }: { id: string }) {
  const t = useT();
  const templateId = Number(id);
  const [template, setTemplate] = useState<TemplateDetail | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  useEffect(() => {
    withServerFields(TEMPLATE)
      .then((document) => gql<{ template: TemplateDetail | null }>(document, { id: templateGid(templateId) }))
      .then((data) => (data.template ? setTemplate(data.template) : setLoadError(t('author.notFound'))))
      .catch((error: Error) => setLoadError(error.message));
  }, [templateId]);

  if (loadError) return <Failed message={loadError} />;
  if (!template) return <Loading />;
  if (template.latestVersion.state !== 'DRAFT') return <NotADraft template={template} />;
  return <DraftEditor template={template} version={template.latestVersion} />;
}

function Loading() {
  const t = useT();
  return (
    <p class="loading" role="status">
      {t('author.loading')}
    </p>
  );
}

function Failed({ message }: { message: string }) {
  const t = useT();
  return (
    <div class="page">
      <h1>{t('author.editor.heading')}</h1>
      <p role="alert" class="notice notice-danger">
        {message}
      </p>
      <a href={appPath('/templates')}>{t('author.backToLibrary')}</a>
    </div>
  );
}

function NotADraft({ template }: { template: TemplateDetail }) {
  const t = useT();
  return (
    <div class="page">
      <h1>{template.title}</h1>
      <p class="notice notice-info">
        {t('author.editor.notADraft', { number: template.latestVersion.number, state: t(`author.state.${template.latestVersion.state}`) })}
      </p>
      <a class="btn btn-primary" href={appPath(`/templates/${template.databaseId}`)}>
        {t('author.editor.toTemplate')}
      </a>
    </div>
  );
}

const STATUS_CLASS: Record<AutosaveState['status'], string> = {
  saved: 'ok',
  pending: 'muted',
  saving: 'muted',
  invalid: 'error',
  conflict: 'error',
  failed: 'warn',
};

function DraftEditor({ template, version }: { template: TemplateDetail; version: VersionDetail }) {
  const { t, format } = useI18n();
  const { route } = useLocation();
  const [content, setContent] = useState<EditorContent>(() => fromServer(version.content));
  const contentRef = useRef(content);
  const [files, setFiles] = useState<Map<number, FileInfo>>(() => filesOf(version.content));
  const [sensors, setSensors] = useState<{ databaseId: number; name: string; unit: string }[]>([]);
  const [save, setSave] = useState<AutosaveState>({
    status: 'saved',
    revision: version.revision,
    problems: [],
    conflict: null,
    savedAt: null,
    message: null,
  });
  const [mode, setMode] = useState<'edit' | 'preview'>('edit');
  const [submitting, setSubmitting] = useState(false);
  const [submitError, setSubmitError] = useState<string | null>(null);
  const { announce, region } = useAnnouncer();
  const [notApplicable, setNotApplicable] = useState(false);
  useEffect(() => {
    void serverHasNotApplicable().then(setNotApplicable);
  }, []);
  const summaryRef = useRef<HTMLDivElement>(null);

  const autosave = useMemo(
    () =>
      new Autosave<EditorContent>(version.revision, {
        // a failure is an ApiError: its code, fields and details are what autosave reads
        save: async (doc, expectedRevision) => {
          const data = await gql<{ updateDraft: { version: { revision: number } } }>(UPDATE_DRAFT, {
            id: versionGid(version.databaseId),
            content: toInput(doc, await serverHasNotApplicable()),
            revision: expectedRevision,
          });
          return { revision: data.updateDraft.version.revision };
        },
        onState: setSave,
      }),
    [version.databaseId],
  );
  // leaving the editor inside the app (a link, back): what is pending is still saved, then autosave ends
  useEffect(
    () => () => {
      void autosave.flush().finally(() => autosave.dispose());
    },
    [autosave],
  );

  useEffect(() => {
    gql<{ sensors: { nodes: { databaseId: number; name: string; unit: string }[] } }>(SENSORS)
      .then((data) => setSensors(data.sensors.nodes))
      .catch(() => setSensors([]));
  }, []);

  // leaving with unsaved changes: the browser asks first
  useEffect(() => {
    const warn = (event: BeforeUnloadEvent) => {
      if (autosave.dirty) event.preventDefault();
    };
    addEventListener('beforeunload', warn);
    return () => removeEventListener('beforeunload', warn);
  }, [autosave]);

  function edit(change: (c: EditorContent) => EditorContent) {
    const next = change(contentRef.current);
    contentRef.current = next;
    setContent(next);
    autosave.change(next);
  }
  // by id, not by position: a change that lands late (an upload finishing) still finds its step after a reorder
  const editStep = (stepId: string) => (change: (s: EditorStep) => EditorStep) =>
    edit((c) => ({
      sections: c.sections.map((sec) =>
        sec.steps.some((st) => st.stepId === stepId)
          ? { ...sec, steps: sec.steps.map((st) => (st.stepId === stepId ? change(st) : st)) }
          : sec,
      ),
    }));
  const editSection = (sectionId: string, change: (s: EditorSection) => EditorSection) =>
    edit((c) => ({ sections: c.sections.map((sec) => (sec.sectionId === sectionId ? change(sec) : sec)) }));

  const problems = useMemo(() => {
    const map = new Map<string, string>();
    for (const p of save.problems) {
      const path = problemPath(p.path);
      map.set(path, map.has(path) ? `${map.get(path)}; ${p.message}` : p.message);
    }
    return map;
  }, [save.problems]);

  const numbered = stepsInOrder(content);
  const numberOf = (at: StepAt) => numbered.find((s) => s.at.section === at.section && s.at.step === at.step)?.number ?? 0;

  async function submit() {
    setSubmitError(null);
    setSubmitting(true);
    try {
      const state = await autosave.flush();
      if (state.status !== 'saved') {
        setSubmitError(t('author.editor.saveFirst'));
        summaryRef.current?.focus();
        return;
      }
      await gql(SUBMIT, { id: versionGid(version.databaseId) });
      route(appPath(`/templates/${template.databaseId}?submitted=1`));
    } catch (error) {
      setSubmitError((error as Error).message);
    } finally {
      setSubmitting(false);
    }
  }

  async function takeTheirs() {
    const data = await gql<{ templateVersion: VersionDetail }>(await withServerFields(VERSION_QUERY), {
      id: versionGid(version.databaseId),
    });
    const theirs = fromServer(data.templateVersion.content);
    contentRef.current = theirs;
    setContent(theirs);
    setFiles((all) => new Map([...all, ...filesOf(data.templateVersion.content)]));
    autosave.adopt(data.templateVersion.revision);
    announce(t('author.conflict.tookTheirs'));
  }

  async function keepMine(revision: number) {
    await autosave.overwrite(revision);
    announce(t('author.conflict.keptMine'));
  }

  const statusText = t(`author.save.${save.status}`, { time: save.savedAt ? format.time(save.savedAt) : '' });

  return (
    <div class="page author-editor">
      {region}
      <ReorderHelp />
      <header class="page-header">
        <div>
          <p class="eyebrow">
            <a href={appPath(`/templates/${template.databaseId}`)}>{template.title}</a>
          </p>
          <h1>{t('author.editor.title', { number: version.number })}</h1>
          <p class={`save-status ${STATUS_CLASS[save.status]}`} role="status" aria-live="polite">
            {statusText}
          </p>
        </div>
        <div class="page-actions">
          <div role="group" aria-label={t('author.editor.view')} class="segmented">
            <button type="button" aria-pressed={mode === 'edit'} onClick={() => setMode('edit')}>
              {t('author.editor.edit')}
            </button>
            <button type="button" aria-pressed={mode === 'preview'} onClick={() => setMode('preview')}>
              {t('author.editor.preview')}
            </button>
          </div>
          <button type="button" class="btn btn-primary" onClick={() => void submit()} disabled={submitting || save.status === 'conflict'}>
            {submitting ? t('author.editor.submitting') : t('author.editor.submit')}
          </button>
        </div>
      </header>

      {version.rejectReason && (
        <div class="notice notice-warning" role="note">
          <strong>{t('author.editor.rejected')}</strong> {version.rejectReason}
        </div>
      )}

      {(save.status === 'invalid' || submitError) && (
        <div
          class="notice notice-danger"
          role={submitError ? 'alert' : undefined}
          tabIndex={-1}
          ref={summaryRef}
          aria-labelledby="author-problems-heading"
        >
          <h2 id="author-problems-heading">{submitError ?? t('author.editor.problems', { count: save.problems.length })}</h2>
          {save.status === 'invalid' && (
            <ul>
              {save.problems.map((p) => {
                const target = inputId(problemPath(p.path));
                return (
                  <li key={p.path}>
                    <a href={`#${target}`} onClick={(e) => (e.preventDefault(), document.getElementById(target)?.focus())}>
                      {describePath(t, problemPath(p.path), contentRef.current)}: {p.message}
                    </a>
                  </li>
                );
              })}
            </ul>
          )}
        </div>
      )}

      {save.status === 'conflict' && save.conflict && (
        <ConflictDialog
          conflict={save.conflict}
          versionId={version.databaseId}
          mine={content}
          onTakeTheirs={takeTheirs}
          onKeepMine={keepMine}
        />
      )}

      {mode === 'preview' ? (
        <Preview content={content} files={files} sensors={sensors} />
      ) : (
        <>
          {content.sections.length === 0 && <p class="muted">{t('author.section.none')}</p>}
          <Reorder<EditorSection>
            items={content.sections}
            keyOf={(s) => s.sectionId}
            nameOf={(s, i) => t('author.section.name', { number: i + 1, title: s.title })}
            label={t('author.section.list')}
            announce={announce}
            onMove={(from, to) => edit((c) => ({ sections: moved(c.sections, from, to) }))}
            class="sections"
            render={(section, s, handle) => (
              <section class="section-editor" aria-labelledby={`section-heading-${section.sectionId}`}>
                <div class="section-head">
                  {handle}
                  <h2 id={`section-heading-${section.sectionId}`}>
                    {t('author.section.name', { number: s + 1, title: section.title || t('author.section.untitled') })}
                  </h2>
                  <button
                    type="button"
                    class="btn btn-danger"
                    onClick={() => {
                      edit((c) => ({ sections: c.sections.filter((sec) => sec.sectionId !== section.sectionId) }));
                      announce(t('author.section.removed', { title: section.title }));
                    }}
                    aria-label={t('author.section.remove', { name: t('author.section.name', { number: s + 1, title: section.title }) })}
                  >
                    {t('author.remove')}
                  </button>
                </div>
                <div class="form-row">
                  <label for={inputId(pathOf.section(s, 'title'))}>{t('author.section.title')}</label>
                  <input
                    id={inputId(pathOf.section(s, 'title'))}
                    type="text"
                    required
                    maxLength={LIMITS.title}
                    value={section.title}
                    onInput={(e) => editSection(section.sectionId, (sec) => ({ ...sec, title: e.currentTarget.value }))}
                    aria-invalid={problems.has(pathOf.section(s, 'title')) || undefined}
                    aria-describedby={problems.has(pathOf.section(s, 'title')) ? `${inputId(pathOf.section(s, 'title'))}-error` : undefined}
                  />
                  <ErrorText problems={problems} path={pathOf.section(s, 'title')} />
                </div>
                <ConditionEditor
                  path={pathOf.section(s, 'when')}
                  value={section.when}
                  earlier={numbered.filter((x) => x.at.section < s).map(({ step: st, number }) => ({ step: st, number }))}
                  content={content}
                  problems={problems}
                  owner={t('author.section.name', { number: s + 1, title: section.title })}
                  onChange={(when) => editSection(section.sectionId, (sec) => ({ ...sec, when }))}
                />
                <Reorder<EditorStep>
                  items={section.steps}
                  keyOf={(st) => st.stepId}
                  nameOf={(st, i) => t('author.step.name', { number: numberOf({ section: s, step: i }), title: st.title })}
                  label={t('author.step.list', { title: section.title })}
                  announce={announce}
                  onMove={(from, to) => editSection(section.sectionId, (sec) => ({ ...sec, steps: moved(sec.steps, from, to) }))}
                  class="steps"
                  render={(step, i, stepHandle) => (
                    <StepEditor
                      step={step}
                      at={{ section: s, step: i }}
                      number={numberOf({ section: s, step: i })}
                      problems={problems}
                      files={files}
                      sensors={sensors}
                      handle={stepHandle}
                      content={content}
                      notApplicable={notApplicable}
                      edit={editStep(step.stepId)}
                      onRemove={() => {
                        editSection(section.sectionId, (sec) => ({ ...sec, steps: sec.steps.filter((st) => st.stepId !== step.stepId) }));
                        announce(t('author.step.removed', { title: step.title }));
                      }}
                      onUploaded={(file) => setFiles((all) => new Map(all).set(file.databaseId, file))}
                      announce={announce}
                    />
                  )}
                />
                {section.steps.length < LIMITS.stepsPerSection && (
                  <button
                    type="button"
                    class="btn btn-secondary add-step"
                    aria-label={t('author.step.addTo', { title: section.title || t('author.section.untitled') })}
                    onClick={() => {
                      const title = t('author.step.defaultTitle', { number: numbered.length + 1 });
                      editSection(section.sectionId, (sec) => ({ ...sec, steps: [...sec.steps, newStep(title)] }));
                      announce(t('author.step.added', { title }));
                    }}
                  >
                    {t('author.step.add')}
                  </button>
                )}
              </section>
            )}
          />
          {content.sections.length < LIMITS.sections && (
            <button
              type="button"
              class="btn btn-secondary add-section"
              onClick={() => {
                const title = t('author.section.defaultTitle', { number: content.sections.length + 1 });
                edit((c) => ({
                  sections: [...c.sections, newSection(title, t('author.step.defaultTitle', { number: numbered.length + 1 }))],
                }));
                announce(t('author.section.added', { title }));
              }}
            >
              {t('author.section.add')}
            </button>
          )}
        </>
      )}
    </div>
  );
}

/** A problem's path in words: "Step 2 · Field 1 · max". */
function describePath(t: Translate, path: string, content: EditorContent): string {
  const m = /^sections\.(\d+)(?:\.steps\.(\d+))?(?:\.fields\.(\d+))?\.?(.*)$/.exec(path);
  if (!m) return path || t('author.editor.document');
  const parts: string[] = [];
  const s = Number(m[1]);
  if (m[2] === undefined) parts.push(t('author.section.name', { number: s + 1, title: content.sections[s]?.title ?? '' }));
  else {
    const number = stepsInOrder(content).find((x) => x.at.section === s && x.at.step === Number(m[2]))?.number ?? Number(m[2]) + 1;
    parts.push(t('author.step.short', { number }));
  }
  if (m[3] !== undefined) parts.push(t('author.field.short', { number: Number(m[3]) + 1 }));
  if (m[4]) parts.push(m[4]);
  return parts.join(' · ');
}

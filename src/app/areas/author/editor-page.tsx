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
  type Removed,
  restored,
  withoutItem,
} from './model';
import { dismiss, toast } from '../../ui/toast';
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
import { Reorder, ReorderHelp } from './reorder';
import { StepEditor } from './step-editor';
import { ErrorText } from './problems';
import { Preview } from './preview';
import { ConditionEditor } from './condition-editor';
import { SkillRequirements } from './skill-requirements';
import { ConflictDialog } from './conflict-dialog';
import { useAnnouncer } from './announce';
import { appPath } from './paths';
import { useI18n, useT, type Translate } from '../../i18n';
import { useSession } from '../../shell/session-context';

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

/** How long a removal can be undone from its toast. */
const UNDO_MS = 10_000;

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
  const me = useSession().session.user.id;
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
      ...c,
      sections: c.sections.map((sec) =>
        sec.steps.some((st) => st.stepId === stepId)
          ? { ...sec, steps: sec.steps.map((st) => (st.stepId === stepId ? change(st) : st)) }
          : sec,
      ),
    }));
  const editSection = (sectionId: string, change: (s: EditorSection) => EditorSection) =>
    edit((c) => ({ ...c, sections: c.sections.map((sec) => (sec.sectionId === sectionId ? change(sec) : sec)) }));

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

  // which sections are folded away: by id, so a reorder or an edit keeps it; kept for the tab's session
  const foldKey = `wip.author.collapsed.${version.databaseId}`;
  const [collapsed, setCollapsed] = useState<Set<string>>(() => {
    try {
      return new Set(JSON.parse(sessionStorage.getItem(foldKey) ?? '[]') as string[]);
    } catch {
      return new Set();
    }
  });
  useEffect(() => sessionStorage.setItem(foldKey, JSON.stringify([...collapsed])), [collapsed]);
  const toggle = (sectionId: string) =>
    setCollapsed((all) => {
      const next = new Set(all);
      if (!next.delete(sectionId)) next.add(sectionId);
      return next;
    });

  /** Opens the section (if folded), then brings its heading, or its step's, into view with the focus on it. */
  function jumpTo(sectionId: string, stepId?: string) {
    setCollapsed((all) => {
      if (!all.has(sectionId)) return all;
      const next = new Set(all);
      next.delete(sectionId);
      return next;
    });
    requestAnimationFrame(() => {
      const target = document.getElementById(stepId ? `step-heading-${stepId}` : `section-heading-${sectionId}`);
      target?.scrollIntoView({ block: 'start' });
      target?.focus({ preventScroll: true });
    });
  }

  /** A problem's input, in a folded section too: the section opens first. */
  function focusProblem(path: string, target: string) {
    const section = contentRef.current.sections[Number(/^sections\.(\d+)/.exec(path)?.[1] ?? -1)];
    if (section && collapsed.has(section.sectionId)) toggle(section.sectionId);
    requestAnimationFrame(() => document.getElementById(target)?.focus());
  }

  /**
   * Removing a section, a step or a field: it leaves the draft at once and
   * autosave saves that like any change (at the next revision); the toast
   * offers to undo it for UNDO_MS. Undo is a change too — the very object
   * put back at its place, ids and keys included, saved at the revision after.
   * Holding the removal back from autosave instead would hold every other
   * change made meanwhile, or save a document the author does not see.
   */
  const undoToasts = useRef(new Set<number>());
  useEffect(() => () => undoToasts.current.forEach(dismiss), []);
  function remove(removed: Removed, message: string) {
    edit((c) => withoutItem(c, removed));
    const id = toast(message, {
      tone: 'info',
      duration: UNDO_MS,
      action: {
        label: t('author.undo'),
        run: () => {
          dismiss(id);
          undoToasts.current.delete(id);
          undo(removed);
        },
      },
    });
    undoToasts.current.add(id);
    setTimeout(() => undoToasts.current.delete(id), UNDO_MS);
  }
  function undo(removed: Removed) {
    const back = restored(contentRef.current, removed);
    if (!back) {
      toast(t('author.undoImpossible'), { tone: 'warning' });
      return;
    }
    edit(() => back);
    if (removed.kind === 'section') jumpTo(removed.section.sectionId);
    else if (removed.kind === 'step') jumpTo(removed.sectionId, removed.step.stepId);
    else {
      const at = stepsInOrder(back).find(({ step }) => step.stepId === removed.stepId);
      if (at) jumpTo(at.section.sectionId, removed.stepId);
    }
    announce(t('author.restored'));
  }

  const selfConflict = save.status === 'conflict' && save.conflict?.updatedBy === me;
  const statusText = t(selfConflict ? 'author.save.conflictSelf' : `author.save.${save.status}`, {
    time: save.savedAt ? format.time(save.savedAt) : '',
  });

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
                    <a href={`#${target}`} onClick={(e) => (e.preventDefault(), focusProblem(problemPath(p.path), target))}>
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
        <div class="editor-body">
          <Outline
            content={content}
            collapsed={collapsed}
            onJump={jumpTo}
            onCollapseAll={(all) => setCollapsed(all ? new Set(content.sections.map((sec) => sec.sectionId)) : new Set())}
          />
          <div class="editor-main">
            <SkillRequirements
              value={content.qualifications}
              onChange={(qualifications) => edit((c) => ({ ...c, qualifications }))}
              path="qualifications"
              legend={t('author.skills.heading')}
              hint={t('author.skills.hint')}
              problems={problems}
            />
            {content.sections.length === 0 && <p class="muted">{t('author.section.none')}</p>}
            <Reorder<EditorSection>
              items={content.sections}
              keyOf={(s) => s.sectionId}
              nameOf={(s, i) => sectionName(t, i, s.title)}
              label={t('author.section.list')}
              announce={announce}
              onMove={(from, to) => edit((c) => ({ ...c, sections: moved(c.sections, from, to) }))}
              class="sections"
              render={(section, s, handle) => {
                const name = sectionName(t, s, section.title);
                const open = !collapsed.has(section.sectionId);
                const bodyId = `section-body-${section.sectionId}`;
                return (
                  <section class="section-editor" aria-labelledby={`section-heading-${section.sectionId}`}>
                    <div class="section-head">
                      {handle}
                      <button
                        type="button"
                        class="btn btn-ghost section-toggle"
                        aria-expanded={open}
                        aria-controls={bodyId}
                        aria-label={t(open ? 'author.section.collapse' : 'author.section.expand', { name })}
                        onClick={() => toggle(section.sectionId)}
                      >
                        <span aria-hidden="true">{open ? '▾' : '▸'}</span>
                      </button>
                      <h2 id={`section-heading-${section.sectionId}`} tabIndex={-1}>
                        {name}
                      </h2>
                      {!open && <span class="badge">{t('author.section.stepCount', { count: section.steps.length })}</span>}
                      <button
                        type="button"
                        class="btn btn-danger"
                        onClick={() =>
                          remove(
                            { kind: 'section', index: s, section },
                            t('author.section.removedUndo', { name, count: section.steps.length }),
                          )
                        }
                        aria-label={t('author.section.remove', { name })}
                      >
                        {t('author.remove')}
                      </button>
                    </div>
                    <div id={bodyId} hidden={!open}>
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
                          aria-describedby={
                            problems.has(pathOf.section(s, 'title')) ? `${inputId(pathOf.section(s, 'title'))}-error` : undefined
                          }
                        />
                        <ErrorText problems={problems} path={pathOf.section(s, 'title')} />
                      </div>
                      <ConditionEditor
                        path={pathOf.section(s, 'when')}
                        value={section.when}
                        earlier={numbered.filter((x) => x.at.section < s).map(({ step: st, number }) => ({ step: st, number }))}
                        content={content}
                        problems={problems}
                        owner={name}
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
                            onRemove={() =>
                              remove(
                                { kind: 'step', sectionId: section.sectionId, index: i, step },
                                t('author.step.removedUndo', {
                                  name: t('author.step.name', {
                                    number: numberOf({ section: s, step: i }),
                                    title: step.title || t('author.step.untitled'),
                                  }),
                                }),
                              )
                            }
                            onRemoveField={(field, index) =>
                              remove(
                                { kind: 'field', stepId: step.stepId, index, field },
                                t('author.field.removedUndo', { name: field.label || field.key }),
                              )
                            }
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
                    </div>
                  </section>
                );
              }}
            />
            {content.sections.length < LIMITS.sections && (
              <button
                type="button"
                class="btn btn-secondary add-section"
                onClick={() => {
                  const title = t('author.section.defaultTitle', { number: content.sections.length + 1 });
                  edit((c) => ({
                    ...c,
                    sections: [...c.sections, newSection(title, t('author.step.defaultTitle', { number: numbered.length + 1 }))],
                  }));
                  announce(t('author.section.added', { title }));
                }}
              >
                {t('author.section.add')}
              </button>
            )}
          </div>
        </div>
      )}
    </div>
  );
}

/**
 * A section as the editor names it: "Section 2: Pump" — or just "Section 2"
 * when it has no title or its title is that already (a new section's default),
 * never "Section 2: Section 2".
 */
export function sectionName(t: Translate, index: number, title: string): string {
  const plain = t('author.section.defaultTitle', { number: index + 1 });
  const trimmed = title.trim();
  if (!trimmed) return t('author.section.nameUntitled', { number: index + 1 });
  return trimmed === plain ? plain : t('author.section.name', { number: index + 1, title: trimmed });
}

/**
 * The draft's outline: its sections and steps as a jump list (a long draft
 * is many screens tall), with "collapse all" and "expand all". A jump into a
 * collapsed section opens it first.
 */
function Outline({
  content,
  collapsed,
  onJump,
  onCollapseAll,
}: {
  content: EditorContent;
  collapsed: ReadonlySet<string>;
  onJump: (sectionId: string, stepId?: string) => void;
  onCollapseAll: (all: boolean) => void;
}) {
  const t = useT();
  const [open] = useState(() => matchMedia('(min-width: 1100px)').matches);
  const steps = stepsInOrder(content);
  return (
    <nav class="editor-outline" aria-label={t('author.outline.label')}>
      <details open={open}>
        <summary>{t('author.outline.heading', { count: steps.length })}</summary>
        <div class="outline-actions">
          <button
            type="button"
            class="btn btn-secondary"
            onClick={() => onCollapseAll(true)}
            disabled={collapsed.size === content.sections.length}
          >
            {t('author.outline.collapseAll')}
          </button>
          <button type="button" class="btn btn-secondary" onClick={() => onCollapseAll(false)} disabled={collapsed.size === 0}>
            {t('author.outline.expandAll')}
          </button>
        </div>
        <ol class="outline-sections">
          {content.sections.map((section, s) => (
            <li key={section.sectionId}>
              <a href={`#section-heading-${section.sectionId}`} onClick={(e) => (e.preventDefault(), onJump(section.sectionId))}>
                {sectionName(t, s, section.title)}
              </a>
              {collapsed.has(section.sectionId) && <span class="muted"> {t('author.outline.collapsed')}</span>}
              <ol class="outline-steps">
                {steps
                  .filter((x) => x.at.section === s)
                  .map(({ step, number }) => (
                    <li key={step.stepId}>
                      <a
                        href={`#step-heading-${step.stepId}`}
                        onClick={(e) => (e.preventDefault(), onJump(section.sectionId, step.stepId))}
                      >
                        {t('author.step.name', { number, title: step.title || t('author.step.untitled') })}
                      </a>
                    </li>
                  ))}
              </ol>
            </li>
          ))}
        </ol>
      </details>
    </nav>
  );
}

/** A problem's path in words: "Step 2 · Field 1 · max". */
function describePath(t: Translate, path: string, content: EditorContent): string {
  if (path.startsWith('qualifications')) return t('author.skills.heading');
  const m = /^sections\.(\d+)(?:\.steps\.(\d+))?(?:\.fields\.(\d+))?\.?(.*)$/.exec(path);
  if (!m) return path || t('author.editor.document');
  const parts: string[] = [];
  const s = Number(m[1]);
  if (m[2] === undefined) parts.push(sectionName(t, s, content.sections[s]?.title ?? ''));
  else {
    const number = stepsInOrder(content).find((x) => x.at.section === s && x.at.step === Number(m[2]))?.number ?? Number(m[2]) + 1;
    parts.push(t('author.step.short', { number }));
  }
  if (m[3] !== undefined) parts.push(t('author.field.short', { number: Number(m[3]) + 1 }));
  if (m[4]) parts.push(m[4]);
  return parts.join(' · ');
}

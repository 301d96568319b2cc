import { useEffect, useId, useState } from 'preact/hooks';
import { api, ApiError, graphql as gql } from '../../api/client';
import { versionGid } from './queries';
import { useT } from '../../i18n';
import { TextField } from '../../ui/fields';

/**
 * A version's translations (docs/translated-instructions.md): each language
 * with its approval and how many texts are translated, stale or missing; the
 * XLIFF 2.0 file to download for translators, and the translated file to
 * bring back. Approving is the reviewers' (approveTranslation).
 */

interface TranslationRow {
  language: string;
  approved: boolean;
  counts: { translated: number; stale: number; missing: number };
}

const TRANSLATIONS = /* GraphQL */ `
  query AuthorTranslations($id: ID!) {
    templateVersion(id: $id) {
      translations {
        language
        approved
        counts {
          translated
          stale
          missing
        }
      }
    }
  }
`;

const xlfPath = (templateId: number, versionId: number, language: string) =>
  `/api/client/templates/${templateId}/versions/${versionId}/translations/${encodeURIComponent(language)}.xlf`;

export function TranslationsPanel({
  templateId,
  versionId,
  versionNumber,
}: {
  templateId: number;
  versionId: number;
  versionNumber: number;
}) {
  const t = useT();
  const fileId = `xlf${useId()}`;
  const [rows, setRows] = useState<TranslationRow[] | null>(null);
  const [language, setLanguage] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const reload = () =>
    gql<{ templateVersion: { translations: TranslationRow[] } | null }>(TRANSLATIONS, { id: versionGid(versionId) })
      .then((d) => setRows(d.templateVersion?.translations ?? []))
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void reload();
  }, [versionId]);

  const tag = language.trim();

  async function importFile(files: FileList | null) {
    const file = files?.[0];
    if (!file) return;
    setNotice(null);
    setError(null);
    if (!tag) {
      setError(t('author.translations.languageFirst'));
      return;
    }
    setBusy(true);
    try {
      // the file's own type is often empty or application/x-xliff+xml: sent as what it is
      const answer = await api<{ language: string; changed: number }>(
        'PUT',
        xlfPath(templateId, versionId, tag),
        new Blob([file], { type: 'application/xliff+xml' }),
      );
      setNotice(t('author.translations.imported', { language: answer.language, changed: answer.changed }));
      await reload();
    } catch (e) {
      const fields = e instanceof ApiError ? e.fields.map((f) => f.message) : [];
      setError([(e as Error).message, ...fields.slice(0, 5)].join(' — '));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="card translations-panel" aria-labelledby="translations-heading">
      <h2 id="translations-heading">{t('author.translations.heading', { number: versionNumber })}</h2>
      <p>{t('author.translations.intro')}</p>
      {rows === null ? (
        <p class="loading" role="status">
          {t('author.loading')}
        </p>
      ) : rows.length === 0 ? (
        <p>{t('author.translations.none')}</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">{t('author.translations.language')}</th>
                <th scope="col">{t('author.translations.status')}</th>
                <th scope="col">{t('author.translations.translated')}</th>
                <th scope="col">{t('author.translations.stale')}</th>
                <th scope="col">{t('author.translations.missing')}</th>
                <th scope="col">{t('author.translations.file')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.language}>
                  <td>{row.language}</td>
                  <td>{row.approved ? t('author.translations.approved') : t('author.translations.awaiting')}</td>
                  <td>{row.counts.translated}</td>
                  <td>{row.counts.stale > 0 ? <strong>{row.counts.stale}</strong> : row.counts.stale}</td>
                  <td>{row.counts.missing}</td>
                  <td>
                    <a href={xlfPath(templateId, versionId, row.language)} download>
                      {t('author.translations.download', { language: row.language })}
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="translations-actions">
        <TextField
          label={t('author.translations.languageLabel')}
          value={language}
          onValue={setLanguage}
          hint={t('author.translations.languageHint')}
          autocomplete="off"
          spellcheck={false}
        />
        <div class="media-buttons">
          {tag ? (
            <a class="btn btn-secondary" href={xlfPath(templateId, versionId, tag)} download>
              {t('author.translations.export')}
            </a>
          ) : null}
          <label class="btn btn-secondary file-button" for={fileId} aria-disabled={busy}>
            {t('author.translations.import')}
          </label>
          <input
            id={fileId}
            class="visually-hidden file-input"
            type="file"
            accept=".xlf,.xliff,application/xliff+xml,application/xml,text/xml"
            disabled={busy}
            onChange={(e) => {
              const input = e.currentTarget;
              void importFile(input.files).finally(() => (input.value = ''));
            }}
          />
        </div>
      </div>
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
    </section>
  );
}

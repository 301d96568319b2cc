import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { APP_WIDTHS, checkPage, openApp, startAppServer, type AppTeam } from '../helpers/app-browser';
import type { TestServer } from '../helpers/server';
import { PASSWORD } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { advance, ok } from '../helpers/templates';
import { createJob } from '../helpers/domain';

// Translated instructions in the floor app (Debian's Chromium, headless): an author
// exports a version's XLIFF file and imports its German translation in the
// template's Translations panel; once approved, an operator whose language is
// German runs the job with the step's texts and the choice's labels in
// German. axe-core at 390, 820 and 1280 px, screenshots in
// test-output/app/translations-<page>-<width>.png. What is stored is checked
// through the API.

let browser: Browser;
let wip: TestServer;
let team: AppTeam;
let templateId = 0;
let versionId = 0;

const setup = suite('app translations: set-up');
setup('a server, a team, a published template; Chromium', async () => {
  ({ wip, team } = await startAppServer());
  const created = ok(
    await gql(
      wip,
      team.author.token,
      `mutation { createTemplate(input: { title: "Seal check", content: { sections: [{ sectionId: "prep", title: "Preparation", steps: [{ stepId: "seal", title: "Check the seal", body: "Look for **oil drops**.", fields: [{ key: "colour", label: "Colour of the seal", type: CHOICE, options: ["red", "green"] }] }] }] } }) { template { databaseId latestVersion { id databaseId } } } }`,
    ),
  ).createTemplate.template;
  templateId = created.databaseId;
  versionId = created.latestVersion.databaseId;
  await advance(wip, team, created.latestVersion.id, 'PUBLISHED');
  browser = await launchChromium();
});
setup.run();

const GERMAN: Record<string, string> = {
  'sec:prep:title': 'Vorbereitung',
  'step:seal:title': 'Dichtung prüfen',
  'step:seal:body': 'Auf **Öltropfen** achten.',
  'field:seal:colour:label': 'Farbe der Dichtung',
  'option:seal:colour:0': 'rot',
  'option:seal:colour:1': 'grün',
};

/** The translator's part: a target and state="translated" for every unit. */
function translate(xml: string): string {
  return xml.replace(/<unit id="([^"]+)"([^>]*)>([\s\S]*?)<\/unit>/g, (_whole, id: string, attributes: string, inner: string) => {
    const target = GERMAN[id].replace(/&/g, '&amp;').replace(/</g, '&lt;');
    return `<unit id="${id}"${attributes}>${inner.replace(/<segment[^>]*>/, '<segment state="translated">').replace('</source>', `</source><target>${target}</target>`)}</unit>`;
  });
}

const flow = suite('app translations: export, import, approve, run in German');

flow('the author exports the XLIFF file and imports the translation in the Translations panel', async () => {
  const page = await openApp(browser, wip, team.author, { width: 1280, path: `/app/templates/${templateId}` });
  try {
    const panel = page.getByRole('region', { name: 'Translations of version 1' });
    await panel.getByText('No translations yet.').waitFor();
    await panel.getByLabel('Language to export or import').fill('de');
    const exportLink = panel.getByRole('link', { name: 'Export XLIFF' });
    assert.is(await exportLink.getAttribute('href'), `/api/client/templates/${templateId}/versions/${versionId}/translations/de.xlf`);
    // the file as the link serves it (the page's session), translated here
    const xml = await page.evaluate<string, string>((href) => fetch(href).then((r) => r.text()), (await exportLink.getAttribute('href'))!);
    assert.match(xml, /<xliff [^>]*version="2\.0"/);
    await panel
      .getByLabel('Import XLIFF')
      .setInputFiles({ name: 'seal-check.de.xlf', mimeType: 'application/x-xliff+xml', buffer: Buffer.from(translate(xml)) });
    await panel.getByRole('status').filter({ hasText: 'Imported the de translation: 6 texts changed.' }).waitFor();
    const row = panel.getByRole('row', { name: /^de / });
    await row.getByRole('cell', { name: 'Awaiting approval' }).waitFor();
    await checkPage(page, 'translations', 'author-imported', 1280);
  } finally {
    await page.context().close();
  }
  const stored = ok(
    await gql(
      wip,
      team.author.token,
      'query($v: ID!) { templateVersion(id: $v) { translations { language approved counts { translated stale missing } } } }',
      { v: `TemplateVersion:${versionId}` },
    ),
  );
  assert.equal(stored.templateVersion.translations, [{ language: 'de', approved: false, counts: { translated: 6, stale: 0, missing: 0 } }]);
});

flow('the panel at every width, approved', async () => {
  ok(
    await gql(
      wip,
      team.approver.token,
      'mutation($i: ApproveTranslationInput!) { approveTranslation(input: $i) { translation { approved } } }',
      { i: { versionId: `TemplateVersion:${versionId}`, language: 'de', password: PASSWORD } },
    ),
  );
  for (const width of APP_WIDTHS) {
    const page = await openApp(browser, wip, team.author, { width, path: `/app/templates/${templateId}` });
    try {
      await page.getByRole('region', { name: 'Translations of version 1' }).getByRole('cell', { name: 'Approved' }).waitFor();
      await checkPage(page, 'translations', 'author', width);
    } finally {
      await page.context().close();
    }
  }
});

flow('an operator whose language is German runs the job in German', async () => {
  const operator = team.operators[0];
  const language = await wip.request('PUT', '/api/client/account/notification-preferences', {
    token: operator.token,
    body: { language: 'de' },
  });
  assert.is(language.status, 200, language.text);
  const job = await createJob(wip, team.supervisor.token, { templateId, title: 'Seal check line 3', assigneeIds: [operator.id] });
  for (const width of APP_WIDTHS) {
    const page = await openApp(browser, wip, operator, { width, path: `/app/jobs/${job.id}/run` });
    try {
      await page.getByRole('heading', { name: 'Dichtung prüfen' }).waitFor();
      assert.ok(await page.getByText('Öltropfen').isVisible(), 'the step body in German, Markdown rendered');
      await page.getByRole('radio', { name: 'grün' }).waitFor();
      await checkPage(page, 'translations', 'operator-run', width);
    } finally {
      await page.context().close();
    }
  }
});

flow.after(async () => {
  await browser?.close();
  await wip?.stop();
});
flow.run();

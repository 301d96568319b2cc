import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { waitFor } from '../helpers/wait';
import { APP_WIDTHS, checkPage, openApp, smallTargets, startAppServer, waitForPage, type AppTeam } from '../helpers/app-browser';
import { contentInput, createJob } from '../helpers/domain';
import { gid, gql } from '../helpers/graphql';
import type { TestServer } from '../helpers/server';

/**
 * Qualifications in the floor app, through the pages only: the author requires a skill in
 * the editor; New job says which assignee lacks it; an unqualified operator is told before starting (Start disabled
 * with the reason); the supervisor grants the skill in the matrix with their signature as trainer (their own row
 * closed up front); the operator can then start. An override with a reason on a job's record page lets another
 * operator work and shows as an override and a deviation of the job. Each page at 390, 820 and 1280 px, English
 * and German, with axe (test-output/app/qualifications-*.png). What is stored is checked through the API.
 */

let browser: Browser;
let wip: TestServer;
let team: AppTeam;
let templateId = 0;
const SKILL = 'Pump maintenance';

const test = suite('floor app: qualifications before the work, the skill matrix, overrides');
test.before(async () => {
  browser = await launchChromium();
  ({ wip, team } = await startAppServer({ clientName: 'Acme Pumps' }));
  const skill = await gql(wip, team.client.owner.token, 'mutation($i: CreateSkillInput!) { createSkill(input: $i) { skill { id } } }', {
    i: { name: SKILL, description: 'Pumps of series P', levels: 3, validityDays: 365 },
  });
  assert.equal(skill.codes, [], JSON.stringify(skill.errors));
  await gql(wip, team.client.owner.token, 'mutation { createSkill(input: { name: "Forklift" }) { skill { id } } }');
});
test.after(async () => {
  await browser?.close();
  await wip?.stop();
});

const CONTENT = {
  sections: [
    {
      id: 'main',
      title: 'Service',
      steps: [{ id: 'seal', title: 'Check the seal', fields: [{ key: 'ok', label: 'Seal intact', type: 'PASS_FAIL', required: true }] }],
    },
  ],
};

const saved = (page: Page) =>
  page
    .getByRole('status')
    .filter({ hasText: /All changes saved/ })
    .waitFor();

async function release(versionId: number): Promise<void> {
  const v = gid('TemplateVersion', versionId);
  for (const [who, mutation] of [
    [team.author, 'mutation($v: ID!) { submitVersion(input: { versionId: $v }) { version { id } } }'],
    [team.approver, 'mutation($v: ID!, $p: String) { approveVersion(input: { versionId: $v, password: $p }) { version { id } } }'],
    [team.publisher, 'mutation($v: ID!, $p: String) { publishVersion(input: { versionId: $v, password: $p }) { version { id } } }'],
  ] as const) {
    const answer = await gql(wip, who.token, mutation, { v, ...(who !== team.author && { p: who.password }) });
    assert.equal(answer.codes, [], JSON.stringify(answer.errors));
  }
}

const [olga, otto] = [0, 1] as const;
const viewer = async (operator: 0 | 1, jobId: number) =>
  (
    await gql(
      wip,
      team.operators[operator].token,
      'query($id: ID!) { node(id: $id) { ... on Job { viewerQualification { qualified overridden } } } }',
      {
        id: gid('Job', jobId),
      },
    )
  ).data.node.viewerQualification;

test('a skill required in the editor, New job naming who lacks it, the operator told before starting, granted in the matrix, then starting', async () => {
  // the author requires the skill at level 2 in the editor
  const created = await gql(
    wip,
    team.author.token,
    'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { template { databaseId } version { databaseId } } }',
    { i: { title: 'Pump service', description: '', tags: [], content: contentInput(CONTENT) } },
  );
  assert.equal(created.codes, [], JSON.stringify(created.errors));
  templateId = created.data.createTemplate.template.databaseId;
  const editor = await openApp(browser, wip, team.author, { width: 1280, path: `/app/templates/${templateId}/edit` });
  await editor.getByRole('heading', { level: 1, name: 'Draft of version 1' }).waitFor();
  const required = editor.getByRole('group', { name: 'Required skills' });
  await required.getByText('No skill required.').waitFor();
  await required.getByRole('button', { name: 'Add a required skill' }).click();
  await required.getByLabel('Skill', { exact: true }).selectOption(SKILL);
  await required.getByLabel('Level').selectOption('2');
  await saved(editor);
  await checkPage(editor, 'qualifications', 'editor-required-skills', 1280);
  const draft = await gql(
    wip,
    team.author.token,
    'query($id: ID!) { template(id: $id) { latestVersion { databaseId content { qualifications { skill level } sections { title } } } } }',
    { id: gid('Template', templateId) },
  );
  assert.equal(draft.data.template.latestVersion.content.qualifications, [{ skill: SKILL, level: 2 }]);
  assert.equal(draft.data.template.latestVersion.content.sections, [{ title: 'Service' }], 'the steps are kept');
  // a reload reads the requirement back (and a later save would keep it)
  await editor.reload();
  await waitForPage(editor);
  assert.is(await editor.getByRole('group', { name: 'Required skills' }).getByLabel('Level').inputValue(), '2');
  await editor.context().close();
  await release(draft.data.template.latestVersion.databaseId);

  // New job: the supervisor sees at the assignee field that Olga lacks the skill, before creating
  const planner = await openApp(browser, wip, team.supervisor, { width: 1280, path: '/app/jobs/new' });
  await planner.getByLabel('Published template').selectOption({ label: 'Pump service (version 1)' });
  const olgaBox = planner.getByRole('checkbox', { name: 'Olga Operator' });
  const lacks = `Not qualified: needs ${SKILL}, level 2 (not held)`;
  await planner.getByText(lacks).first().waitFor();
  assert.equal(await olgaBox.getAttribute('aria-describedby').then((id) => planner.locator(`#${id}`).textContent()), lacks);
  await olgaBox.check();
  await planner
    .getByText(`Olga Operator is not qualified for this template: needs ${SKILL}, level 2 (not held).`, { exact: false })
    .waitFor();
  await checkPage(planner, 'qualifications', 'new-job-assignee', 1280);
  await olgaBox.uncheck();
  await planner.getByLabel('Job title').fill('Pump 7 service');
  await planner.getByRole('button', { name: 'Create job' }).click();
  await planner.waitForURL(`${wip.url}/app/board`);
  await planner.context().close();
  const jobs = await gql(wip, team.supervisor.token, '{ jobs(last: 10) { nodes { databaseId title } } }');
  const jobId: number = jobs.data.jobs.nodes.find((j: { title: string }) => j.title === 'Pump 7 service').databaseId;

  // the operator is told before starting: in the team's list, and on the job page with Start disabled
  const operator = await openApp(browser, wip, team.operators[olga], { width: 820, path: '/app/jobs' });
  await operator.getByRole('tab', { name: "Team's jobs" }).click();
  const card = operator.getByRole('listitem').filter({ hasText: 'Pump 7 service' });
  await card.getByText(`You may not work on this job yet: needs ${SKILL}, level 2 (you do not hold it)`).waitFor();
  await card.getByRole('link', { name: 'Pump 7 service' }).click();
  await operator.waitForURL(`${wip.url}/app/jobs/${jobId}`);
  const start = operator.getByRole('button', { name: 'Run job' });
  await start.waitFor();
  assert.ok(await start.isDisabled(), 'Start is disabled');
  const reasonId = await start.getAttribute('aria-describedby');
  const reason = (await operator.locator(`#${reasonId}`).textContent()) ?? '';
  assert.match(reason, `needs ${SKILL}, level 2 (you do not hold it)`);
  assert.match(reason, 'Ask your supervisor');
  await operator.locator('.job-details').getByText(`${SKILL}, level 2`).waitFor();
  // the run page, opened directly, records nothing either
  await operator.goto(`${wip.url}/app/jobs/${jobId}/run`);
  await waitForPage(operator);
  assert.ok(
    await operator
      .getByRole('button', { name: /^Save and / })
      .first()
      .isDisabled(),
    'saving a step is disabled',
  );
  assert.equal(await viewer(olga, jobId), { qualified: false, overridden: false });

  // the supervisor grants it in the matrix, signing as trainer; their own row offers nothing (separation of duties)
  const matrix = await openApp(browser, wip, team.supervisor, { width: 1280, path: '/app/skills' });
  await matrix.getByRole('heading', { level: 1, name: 'Skills' }).waitFor();
  await matrix.getByText('You cannot grant or revoke your own skills (separation of duties)', { exact: false }).waitFor();
  const own = matrix.getByRole('row').filter({ hasText: 'Sam Supervisor' });
  assert.is(await own.getByRole('button').count(), 0, 'no grant on the own row');
  await matrix.getByRole('button', { name: `Grant ${SKILL} to Olga Operator` }).click();
  const dialog = matrix.getByRole('dialog', { name: `Grant ${SKILL} to Olga Operator` });
  await dialog.getByLabel('Level').selectOption('2');
  await dialog.getByText('I trained Olga Operator in Pump maintenance at level 2 and sign as their trainer.').waitFor();
  await checkPage(matrix, 'qualifications', 'grant', 1280);
  await dialog.getByLabel('Your password').fill('wrong password');
  await dialog.getByRole('button', { name: 'Sign and grant' }).click();
  await dialog.getByText(/^Not granted:/).waitFor();
  await dialog.getByLabel('Your password').fill(team.supervisor.password);
  await dialog.getByRole('button', { name: 'Sign and grant' }).click();
  await matrix.getByRole('status').getByText(`${SKILL} granted to Olga Operator.`).waitFor();
  const olgaRow = matrix.getByRole('row').filter({ hasText: 'Olga Operator' });
  await olgaRow.getByText('Level 2').waitFor();
  await olgaRow.getByText('trainer: Sam Supervisor').waitFor();
  await matrix.context().close();
  const held = await gql(
    wip,
    team.operators[olga].token,
    '{ mySkills { skill { name } level expiresAt trainerName trainedBy { databaseId } } }',
  );
  assert.equal(
    held.data.mySkills.map((s: any) => [s.skill.name, s.level, s.trainerName, s.trainedBy.databaseId, s.expiresAt !== null]),
    [[SKILL, 2, 'Sam Supervisor', team.supervisor.id, true]],
    'signed as trainer; validity 365 days',
  );

  // now the operator can start
  await operator.goto(`${wip.url}/app/jobs/${jobId}`);
  await waitForPage(operator);
  await operator.getByRole('link', { name: 'Run job' }).click();
  await operator.waitForURL(new RegExp(`/app/jobs/${jobId}/run`));
  await operator.getByRole('radio', { name: 'Pass' }).check();
  await operator
    .getByRole('button', { name: /^Save and / })
    .first()
    .click();
  await operator.getByRole('status').getByText(/Saved/).first().waitFor();
  // the record is sent by the app's queue: the server has it, and the job is started, within a few seconds
  const stateOf = async () =>
    (await gql(wip, team.supervisor.token, 'query($id: ID!) { node(id: $id) { ... on Job { state } } }', { id: gid('Job', jobId) })).data
      .node.state;
  await waitFor('the job to be started on the server', async () => (await stateOf()) === 'IN_PROGRESS');
  await operator.context().close();
});

test('an override with a reason on the job record: listed there and as a deviation; the operator may then start', async () => {
  assert.ok(templateId, 'the first test made the template');
  const job = await createJob(wip, team.supervisor.token, { templateId, title: 'Pump 9 service' });
  const page = await openApp(browser, wip, team.supervisor, { width: 820, path: `/app/jobs/${job.id}/record` });
  await page.getByRole('button', { name: 'Let someone work on it anyway…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Override a missing qualification' });
  await dialog.getByRole('button', { name: 'Override' }).click();
  await dialog.getByText('Choose the person.').waitFor();
  await dialog.getByText('Give a reason.').waitFor();
  await dialog.getByLabel('Person').selectOption({ label: `Otto Operator (${team.operators[otto].email})` });
  await dialog.getByLabel('Reason').fill('Certified at the partner plant, papers on file');
  await dialog.getByRole('button', { name: 'Override' }).click();
  await page.getByRole('status').getByText('Override recorded.').waitFor();
  const overrides = page.getByRole('region', { name: 'Qualification overrides (1)' });
  await overrides.getByText('Reason: Certified at the partner plant, papers on file').waitFor();
  await overrides.getByText(`lacked ${SKILL}, level 2`).waitFor();
  await page.getByText('qualification of Otto Operator: Certified at the partner plant, papers on file').waitFor();
  await checkPage(page, 'qualifications', 'record-override', 820);
  await page.context().close();
  const stored = await gql(
    wip,
    team.supervisor.token,
    'query($id: ID!) { node(id: $id) { ... on Job { qualificationOverrides { reason user { databaseId } } deviations { kind } } } }',
    { id: gid('Job', job.id) },
  );
  assert.equal(stored.data.node.qualificationOverrides, [
    { reason: 'Certified at the partner plant, papers on file', user: { databaseId: team.operators[otto].id } },
  ]);
  assert.equal(
    stored.data.node.deviations.map((d: { kind: string }) => d.kind),
    ['OVERRIDE'],
  );
  assert.equal(await viewer(otto, job.id), { qualified: true, overridden: true });

  const operator = await openApp(browser, wip, team.operators[otto], { width: 390, path: `/app/jobs/${job.id}` });
  await operator.getByText('An override lets you work on this job').waitFor();
  await operator.getByRole('link', { name: 'Run job' }).waitFor();
  await operator.context().close();
});

/** The user's language, chosen in the shell and saved with their account: waits for the server to have it. */
async function chooseLanguage(page: Page, language: 'en' | 'de'): Promise<void> {
  const saved = page.waitForResponse((r) => r.url().endsWith('/notification-preferences') && r.request().method() === 'PUT');
  await page.locator('label.language select').selectOption(language);
  await page.locator(`html[lang="${language}"]`).waitFor();
  assert.is((await saved).status(), 200);
}

const pages = (jobId: number) =>
  [
    ['/app/skills', 'supervisor', { en: 'Skills', de: 'Qualifikationen' }, 'matrix'],
    [`/app/jobs/${jobId}`, 'operator', { en: 'Pump 3 service', de: 'Pump 3 service' }, 'job-unqualified'],
    ['/app/jobs/new', 'supervisor', { en: 'New job', de: 'Neuer Auftrag' }, 'new-job'],
  ] as const;

for (const width of APP_WIDTHS) {
  test(`the qualification pages at ${width} px, English and German: axe, no horizontal scrolling, touch targets`, async () => {
    const job = await createJob(wip, team.supervisor.token, { templateId, title: 'Pump 3 service' });
    for (const [path, who, heading, name] of pages(job.id)) {
      const member = who === 'supervisor' ? team.supervisor : team.operators[otto];
      // each page starts in English, whatever an earlier page left chosen
      const english = await wip.request('PUT', '/api/client/account/notification-preferences', {
        token: member.token,
        body: { language: 'en' },
      });
      assert.is(english.status, 200, english.text);
      const page = await openApp(browser, wip, member, { width, path });
      for (const language of ['en', 'de'] as const) {
        if (language === 'de') await chooseLanguage(page, 'de');
        await page.getByRole('heading', { level: 1, name: heading[language] }).waitFor();
        await waitForPage(page);
        if (name === 'new-job') {
          await page.getByLabel(language === 'en' ? 'Published template' : 'Freigegebene Vorlage').selectOption({ index: 1 });
          await page.locator('.assignee-unqualified').first().waitFor();
        }
        if (name === 'job-unqualified')
          await page
            .getByText(language === 'en' ? 'You may not work on this job yet' : 'Sie dürfen an diesem Auftrag noch nicht arbeiten')
            .waitFor();
        if (name === 'matrix') await page.locator('.skill-matrix').waitFor();
        await checkPage(page, 'qualifications', `${name}-${language}`, width);
        assert.equal(await smallTargets(page), [], `${name} ${language} at ${width}`);
      }
      // back to English for the next page (the choice is the user's, saved on the server)
      await chooseLanguage(page, 'en');
      await page.context().close();
    }
  });
}

test.run();

import diagnosticsChannel from 'node:diagnostics_channel';
import type http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, PASSWORD, type BuiltClient } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { contentInput, createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';
import { pdfText } from '../helpers/pdf';
import { unzip } from '../helpers/zip';

// Translated instructions (docs/translated-instructions.md):
// a version's XLIFF 2.0 file exported, translated here, imported, approved,
// served in the operator's language (GraphQL and the PDFs), made stale by a
// new draft's change of its source, and every bad file refused with a 4xx.

let server: TestServer;
const translations = suite('translated instructions: XLIFF 2.0 export and import, approval, operator language, staleness');
translations.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
translations.after(async () => server.stop());

/** A Markdown body with what XML and round trips get wrong: markup characters, CRLF, tabs, edge spaces, non-Latin text. */
const BODY = '  Use the **calibrated** wrench <10 Nm> & "check" it.\r\n\r\n- item\twith tab\n- `code]]>` ü 漢字 😀\n\n';
const GERMAN_BODY = '  Den **kalibrierten** Schlüssel <10 Nm> & „prüfen“.\r\n\r\n- Punkt\tmit Tab\n- `code]]>` ü 漢字 😀\n\n';

const CONTENT = {
  sections: [
    {
      id: 'prep',
      title: 'Preparation',
      steps: [
        {
          id: 'measure',
          title: 'Measure the torque',
          body: BODY,
          fields: [{ key: 'torque', label: 'Torque', type: 'NUMBER', required: true, unit: 'Nm' }],
        },
        { id: 'check', title: 'Check the seal', fields: [{ key: 'colour', label: 'Colour', type: 'CHOICE', options: ['red', 'green'] }] },
      ],
    },
  ],
};

const GERMAN: Record<string, string> = {
  'sec:prep:title': 'Vorbereitung',
  'step:measure:title': 'Drehmoment messen',
  'step:measure:body': GERMAN_BODY,
  'field:measure:torque:label': 'Drehmoment',
  'step:check:title': 'Dichtung prüfen',
  'field:check:colour:label': 'Farbe',
  'option:check:colour:0': 'rot',
  'option:check:colour:1': 'grün',
};

const xmlEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
const xmlUnescape = (text: string) =>
  text
    .replace(/&#13;|&#xD;/gi, '\r')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** The units of an XLIFF file as a translator's tool sees them: id, segment state, source, target. */
function unitsOf(xml: string): Map<string, { state: string | null; source: string; target: string | null }> {
  const units = new Map<string, { state: string | null; source: string; target: string | null }>();
  for (const [, id, inner] of xml.matchAll(/<unit id="([^"]+)"[^>]*>([\s\S]*?)<\/unit>/g)) {
    const state = /<segment[^>]*\bstate="([^"]+)"/.exec(inner)?.[1] ?? null;
    const source = /<source>([\s\S]*?)<\/source>|<source\/>/.exec(inner);
    const target = /<target>([\s\S]*?)<\/target>/.exec(inner);
    units.set(id, { state, source: xmlUnescape(source?.[1] ?? ''), target: target ? xmlUnescape(target[1]) : null });
  }
  return units;
}

/** What a translator does: a target (and state="translated") for every unit `translate` answers for. */
function translate(xml: string, translate: (id: string, source: string) => string | undefined): string {
  return xml.replace(/<unit id="([^"]+)"([^>]*)>([\s\S]*?)<\/unit>/g, (whole, id: string, attributes: string, inner: string) => {
    const source = unitsOf(whole).get(id)!.source;
    const target = translate(id, source);
    if (target === undefined) return whole;
    const segment = inner
      .replace(/<target>[\s\S]*?<\/target>/, '')
      .replace(/<segment[^>]*>/, '<segment state="translated">')
      .replace(/(<\/source>|<source\/>)/, `$1<target>${xmlEscape(target)}</target>`);
    return `<unit id="${id}"${attributes}>${segment}</unit>`;
  });
}

const xlfPath = (templateId: number, versionId: number, lang = 'de') =>
  `/api/client/templates/${templateId}/versions/${versionId}/translations/${lang}.xlf`;

async function getXliff(token: string, path: string) {
  const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${token}` } });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    disposition: res.headers.get('content-disposition'),
    text: await res.text(),
  };
}

function putXliff(token: string, path: string, xml: string, contentType = 'application/xliff+xml') {
  return server.request('PUT', path, { token, raw: xml, headers: { 'content-type': contentType } });
}

const CONTENT_FIELDS = 'language sections { title steps { stepId title body fields { key label options optionLabels } } }';

async function versionContent(token: string, versionId: number, language: string | null) {
  const res = await gql(
    server,
    token,
    `query($v: ID!, $l: String) { node(id: $v) { ... on TemplateVersion { content(language: $l) { ${CONTENT_FIELDS} } } } }`,
    { v: gid('TemplateVersion', versionId), l: language },
  );
  assert.equal(res.codes, [], JSON.stringify(res.errors));
  return res.data.node.content;
}

async function approve(signer: { token: string | undefined }, versionId: number, language = 'de') {
  return gql(
    server,
    signer.token,
    'mutation($i: ApproveTranslationInput!) { approveTranslation(input: $i) { translation { language approved approverName counts { translated stale missing } } } }',
    {
      i: { versionId: gid('TemplateVersion', versionId), language, password: PASSWORD },
    },
  );
}

/** A client with a published template, its German translation exported, translated, imported and approved. */
async function translated(): Promise<{
  client: BuiltClient;
  templateId: number;
  versionId: number;
  signer: { token: string | undefined; password: string };
  exported: string;
}> {
  const client = await buildClient(server, { seats: { full: 20, connect: 5 } });
  const template = await publishedTemplate(server, client, CONTENT, 'Pump overhaul');
  const path = xlfPath(template.templateId, template.versionId);
  const exported = await getXliff(client.owner.token, path);
  assert.is(exported.status, 200, exported.text);
  const put = await putXliff(
    client.owner.token,
    path,
    translate(exported.text, (id) => GERMAN[id]),
  );
  assert.is(put.status, 200, put.text);
  const approved = await approve(template.signer, template.versionId);
  assert.equal(approved.codes, [], JSON.stringify(approved.errors));
  return { client, templateId: template.templateId, versionId: template.versionId, signer: template.signer, exported: exported.text };
}

translations('a version exports as XLIFF 2.0: every text a unit, untranslated ones initial without a target', async () => {
  const client = await buildClient(server);
  const template = await publishedTemplate(server, client, CONTENT, 'Pump overhaul');
  const res = await getXliff(client.owner.token, xlfPath(template.templateId, template.versionId, 'de-at'));
  assert.is(res.status, 200, res.text);
  assert.ok(res.type?.startsWith('application/xliff+xml'), String(res.type));
  assert.match(String(res.disposition), /attachment; filename="template-\d+-v1\.de-AT\.xlf"/);
  assert.match(res.text, /<xliff [^>]*version="2\.0"/);
  assert.match(res.text, /xmlns="urn:oasis:names:tc:xliff:document:2\.0"/);
  assert.match(res.text, /srcLang="en"/);
  assert.match(res.text, /trgLang="de-AT"/);
  assert.match(res.text, new RegExp(`<file id="version-${template.versionId}"`));
  const units = unitsOf(res.text);
  assert.equal([...units.keys()], Object.keys(GERMAN));
  assert.is(units.get('step:measure:body')!.source, BODY, 'the Markdown body byte for byte');
  assert.is(units.get('option:check:colour:1')!.source, 'green');
  for (const unit of units.values()) {
    assert.is(unit.state, 'initial');
    assert.is(unit.target, null);
  }
});

translations(
  'imported, approved and served: GraphQL content(language:) and job content, the template and job PDFs, byte-exact Markdown',
  async () => {
    const { client, templateId, versionId } = await translated();
    const operator = await buildUser(server, client, { roles: ['operator'] });

    const german = await versionContent(operator.token!, versionId, 'de-AT');
    assert.is(german.language, 'de', 'de-AT falls back to de');
    assert.is(german.sections[0].title, 'Vorbereitung');
    const [measure, check] = german.sections[0].steps;
    assert.is(measure.title, 'Drehmoment messen');
    assert.is(measure.body, GERMAN_BODY, 'the translated Markdown byte for byte');
    assert.is(measure.fields[0].label, 'Drehmoment');
    assert.equal(check.fields[0].options, ['red', 'green'], 'options stay the values recorded');
    assert.equal(check.fields[0].optionLabels, ['rot', 'grün']);
    // without a language: the source, as authors edit it
    const source = await versionContent(operator.token!, versionId, null);
    assert.is(source.language, null);
    assert.is(source.sections[0].steps[0].body, BODY);
    // a language without a translation: the source
    assert.is((await versionContent(operator.token!, versionId, 'fr')).sections[0].title, 'Preparation');

    // the operator's job shows its version in their language
    const job = await createJob(server, client.owner.token, { templateId, title: 'Overhaul pump 7', assigneeIds: [operator.id] });
    const jobContent = await gql(
      server,
      operator.token,
      `query($j: ID!) { job(id: $j) { version { content(language: "de") { ${CONTENT_FIELDS} } } } }`,
      { j: gid('Job', job.id) },
    );
    assert.equal(jobContent.codes, [], JSON.stringify(jobContent.errors));
    assert.is(jobContent.data.job.version.content.sections[0].steps[1].title, 'Dichtung prüfen');

    // TemplateVersion.translations: the units and their states
    const listed = await gql(
      server,
      client.owner.token,
      'query($v: ID!) { node(id: $v) { ... on TemplateVersion { translations { language approved approverName unitsHash counts { translated stale missing } units { unitId kind source target state } } } } }',
      { v: gid('TemplateVersion', versionId) },
    );
    assert.equal(listed.codes, [], JSON.stringify(listed.errors));
    const [de] = listed.data.node.translations;
    assert.is(de.language, 'de');
    assert.is(de.approved, true);
    assert.equal(de.counts, { translated: 8, stale: 0, missing: 0 });
    assert.equal(
      de.units.find((u: any) => u.unitId === 'step:measure:body'),
      { unitId: 'step:measure:body', kind: 'step-body', source: BODY, target: GERMAN_BODY, state: 'TRANSLATED' },
    );

    // the PDFs in the reader's language: Accept-Language, or ?lang=
    const templatePdf = await fetch(`${server.url}/api/client/get-as-pdf/getTemplateAsPdf/${templateId}`, {
      headers: { authorization: `Bearer ${operator.token}`, 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' },
    });
    assert.is(templatePdf.status, 200);
    const templateText = (await pdfText(Buffer.from(await templatePdf.arrayBuffer()))).text;
    for (const expected of [
      'Language: de (approved translation)',
      'Vorbereitung',
      'Step 1: Drehmoment messen',
      'Den kalibrierten Schlüssel',
      'Step 2: Dichtung prüfen',
      'Farbe CHOICE no rot, grün',
    ]) {
      assert.ok(templateText.includes(expected), `"${expected}" in ${templateText}`);
    }
    const jobPdf = await fetch(`${server.url}/api/client/get-as-pdf/getJobHistoryAsPdf/${job.id}?lang=de`, {
      headers: { authorization: `Bearer ${operator.token}` },
    });
    assert.is(jobPdf.status, 200);
    const jobText = (await pdfText(Buffer.from(await jobPdf.arrayBuffer()))).text;
    assert.ok(jobText.includes('Step 1: Drehmoment messen (Vorbereitung)'), jobText);
    // the zipped job report prints its PDF in the reader's language too; its data files keep the source texts
    const zipped = await fetch(`${server.url}/api/client/download-zipped-job-report/${job.id}`, {
      headers: { authorization: `Bearer ${operator.token}`, 'accept-language': 'de-DE, en;q=0.5' },
    });
    assert.is(zipped.status, 200);
    const entries = await unzip(Buffer.from(await zipped.arrayBuffer()));
    const zippedText = (await pdfText(entries.get(`job-${job.id}.pdf`)!)).text;
    assert.ok(zippedText.includes('Step 1: Drehmoment messen (Vorbereitung)'), zippedText);
    // no language asked for: the source
    const english = await fetch(`${server.url}/api/client/get-as-pdf/getTemplateAsPdf/${templateId}`, {
      headers: { authorization: `Bearer ${operator.token}` },
    });
    assert.ok((await pdfText(Buffer.from(await english.arrayBuffer()))).text.includes('Step 1: Measure the torque'));
    const badLang = await server.request('GET', `/api/client/get-as-pdf/getJobHistoryAsPdf/${job.id}?lang=not_a_tag`, {
      token: operator.token,
    });
    assert.is(badLang.status, 422, badLang.text);
  },
);

translations('the round trip is lossless: the exported translation imported again changes nothing', async () => {
  const { client, templateId, versionId } = await translated();
  const path = xlfPath(templateId, versionId);
  const exported = await getXliff(client.owner.token, path);
  const units = unitsOf(exported.text);
  for (const [id, text] of Object.entries(GERMAN)) {
    assert.is(units.get(id)!.target, text, id);
    assert.is(units.get(id)!.state, 'final', `${id}: approved`);
  }
  const before = (
    await gql(
      server,
      client.owner.token,
      'query($v: ID!) { node(id: $v) { ... on TemplateVersion { translations { unitsHash approved } } } }',
      { v: gid('TemplateVersion', versionId) },
    )
  ).data.node.translations[0];
  const again = await putXliff(client.owner.token, path, exported.text);
  assert.is(again.status, 200, again.text);
  assert.is(again.body.data.unitsHash, before.unitsHash, 'the same units');
  assert.is(again.body.data.approved, true, 'an unchanged translation keeps its approval');
  // a change withdraws the approval: operators get the source again until it is approved
  const changed = await putXliff(
    client.owner.token,
    path,
    translate(exported.text, (id) => (id === 'step:check:title' ? 'Dichtung ansehen' : undefined)),
  );
  assert.is(changed.status, 200, changed.text);
  assert.is(changed.body.data.approved, false);
  assert.is(changed.body.data.changed, 1);
  assert.is(changed.body.data.unchanged, 7);
  assert.is((await versionContent(client.owner.token, versionId, 'de')).language, null);
});

translations(
  'a new draft that changes a source text marks that unit stale: the source is served for it, the export says initial',
  async () => {
    const { client, templateId, versionId } = await translated();
    const draft = await gql(
      server,
      client.owner.token,
      'mutation($t: ID!) { createDraft(input: { templateId: $t }) { version { databaseId } } }',
      { t: gid('Template', templateId) },
    );
    assert.equal(draft.codes, [], JSON.stringify(draft.errors));
    const draftId: number = draft.data.createDraft.version.databaseId;
    const changed = structuredClone(CONTENT);
    changed.sections[0].steps[0].title = 'Measure the torque twice';
    const edit = await gql(
      server,
      client.owner.token,
      'mutation($v: ID!, $c: ContentInput!) { updateDraft(input: { versionId: $v, content: $c }) { version { id } } }',
      { v: gid('TemplateVersion', draftId), c: contentInput(changed) },
    );
    assert.equal(edit.codes, [], JSON.stringify(edit.errors));

    const listed = await gql(
      server,
      client.owner.token,
      'query($v: ID!) { node(id: $v) { ... on TemplateVersion { translations { approved counts { translated stale missing } units { unitId state target } } } } }',
      { v: gid('TemplateVersion', draftId) },
    );
    assert.equal(listed.codes, [], JSON.stringify(listed.errors));
    const [de] = listed.data.node.translations;
    assert.equal(de.counts, { translated: 7, stale: 1, missing: 0 });
    assert.equal(
      de.units.find((u: any) => u.unitId === 'step:measure:title'),
      { unitId: 'step:measure:title', state: 'STALE', target: 'Drehmoment messen' },
    );
    assert.is(de.approved, true, 'the approval came along: it signs what each text translated');
    const content = await versionContent(client.owner.token, draftId, 'de');
    assert.is(content.sections[0].steps[0].title, 'Measure the torque twice', 'the stale unit falls back to the source');
    assert.is(content.sections[0].steps[0].body, GERMAN_BODY, 'the others stay translated');
    // the published version is untouched
    assert.is((await versionContent(client.owner.token, versionId, 'de')).sections[0].steps[0].title, 'Drehmoment messen');

    const exported = await getXliff(client.owner.token, xlfPath(templateId, draftId));
    const units = unitsOf(exported.text);
    assert.equal(units.get('step:measure:title'), { state: 'initial', source: 'Measure the torque twice', target: 'Drehmoment messen' });
    assert.match(exported.text, /stale: the source text changed/);
    // brought back untouched, the stale unit stays stale; translated again, it is current
    const untouched = await putXliff(client.owner.token, xlfPath(templateId, draftId), exported.text);
    assert.is(untouched.status, 200, untouched.text);
    assert.equal(untouched.body.data.counts, { translated: 7, stale: 1, missing: 0 });
    const fixed = await putXliff(
      client.owner.token,
      xlfPath(templateId, draftId),
      translate(exported.text, (id) => (id === 'step:measure:title' ? 'Drehmoment zweimal messen' : undefined)),
    );
    assert.is(fixed.status, 200, fixed.text);
    assert.equal(fixed.body.data.counts, { translated: 8, stale: 0, missing: 0 });
  },
);

translations('bad files are refused with a 4xx and change nothing; roles, other clients and retired versions', async () => {
  const { client, templateId, versionId, signer, exported } = await translated();
  const path = xlfPath(templateId, versionId);
  const refused = async (body: string, status: number, code: string, contentType?: string) => {
    const res = await putXliff(client.owner.token, path, body, contentType);
    assert.is(res.status, status, `${body.slice(0, 60)} → ${res.text}`);
    assert.is(res.body.error.code, code);
    return res;
  };
  await refused('this is not XML', 400, 'BAD_REQUEST');
  await refused('<xliff version="2.0"><file id="x"><unit id="a"><segment><source>a</source></unit></file></xliff>', 400, 'BAD_REQUEST');
  await refused('<?xml version="1.0"?><html><body/></html>', 400, 'BAD_REQUEST');
  await refused(
    '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file source-language="en" target-language="de" original="x"><body/></file></xliff>',
    400,
    'BAD_REQUEST',
  );
  await refused(
    '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><xliff version="2.0" srcLang="en" trgLang="de"><file id="x">&e;</file></xliff>',
    400,
    'BAD_REQUEST',
  );
  await refused(exported, 415, 'UNSUPPORTED_MEDIA_TYPE', 'text/plain');
  const unknown = await refused(
    translate(exported, () => 'x').replace('id="step:check:title"', 'id="step:nope:title"'),
    422,
    'VALIDATION_ERROR',
  );
  assert.ok(JSON.stringify(unknown.body.error.details).includes('step:nope:title'));
  const wrongLanguage = await refused(exported.replace('trgLang="de"', 'trgLang="fr"'), 422, 'VALIDATION_ERROR');
  assert.ok(JSON.stringify(wrongLanguage.body.error.details).includes('body.trgLang'));
  const badTag = await server.request('GET', xlfPath(templateId, versionId, 'de_DE!'), { token: client.owner.token });
  assert.is(badTag.status, 422, badTag.text);
  assert.is(badTag.body.error.details.fields[0].path, 'path.lang');
  const tooLarge = await putXliff(client.owner.token, path, exported.replace('</xliff>', `<!--${'x'.repeat(9 * 1024 * 1024)}--></xliff>`));
  assert.is(tooLarge.status, 413, tooLarge.text.slice(0, 200));
  // nothing of the above changed the approved translation
  assert.is((await versionContent(client.owner.token, versionId, 'de')).language, 'de');

  // another version's file: a version of the same template
  const draft = await gql(
    server,
    client.owner.token,
    'mutation($t: ID!) { createDraft(input: { templateId: $t }) { version { databaseId } } }',
    { t: gid('Template', templateId) },
  );
  const draftId: number = draft.data.createDraft.version.databaseId;
  const wrongVersion = await putXliff(client.owner.token, xlfPath(templateId, draftId), exported);
  assert.is(wrongVersion.status, 422, wrongVersion.text);
  assert.ok(JSON.stringify(wrongVersion.body.error.details).includes('body.file.id'));
  // a version under another template's id, and another client's version: not found
  const otherTemplate = await publishedTemplate(server, client, CONTENT, 'Other');
  assert.is((await getXliff(client.owner.token, xlfPath(otherTemplate.templateId, versionId))).status, 404);
  const other = await buildClient(server);
  assert.is((await getXliff(other.owner.token, path)).status, 404);
  const foreignPut = await putXliff(other.owner.token, path, exported);
  assert.is(foreignPut.status, 404, foreignPut.text);
  const foreignApprove = await approve({ token: other.owner.token }, versionId);
  assert.equal(foreignApprove.codes, ['NOT_FOUND']);

  // roles: an operator reads the file but may not import; the importer may not approve their own import
  const operator = await buildUser(server, client, { roles: ['operator'] });
  assert.is((await getXliff(operator.token!, path)).status, 200);
  assert.is((await putXliff(operator.token!, path, exported)).status, 403);
  const author = await buildUser(server, client, { roles: ['author', 'approver'] });
  const change = await putXliff(
    author.token!,
    path,
    translate(exported, (id) => (id === 'step:check:title' ? 'Dichtung ansehen' : undefined)),
  );
  assert.is(change.status, 200, change.text);
  assert.equal((await approve(author, versionId)).codes, ['SEPARATION_OF_DUTIES']);
  const wrongPassword = await gql(
    server,
    signer.token,
    'mutation($i: ApproveTranslationInput!) { approveTranslation(input: $i) { translation { approved } } }',
    { i: { versionId: gid('TemplateVersion', versionId), language: 'de', password: 'wrong-password' } },
  );
  assert.equal(wrongPassword.codes, ['INVALID_CREDENTIALS']);
  assert.equal((await approve(signer, versionId)).codes, []);

  // a retired version is not translated any more (publishing the draft retires version 1)
  const draftVersion = gid('TemplateVersion', draftId);
  assert.equal(
    (
      await gql(server, client.owner.token, 'mutation($v: ID!) { submitVersion(input: { versionId: $v }) { version { id } } }', {
        v: draftVersion,
      })
    ).codes,
    [],
  );
  for (const action of ['approveVersion', 'publishVersion']) {
    const res = await gql(
      server,
      signer.token,
      `mutation($v: ID!, $p: String) { ${action}(input: { versionId: $v, password: $p }) { version { id } } }`,
      { v: draftVersion, p: PASSWORD },
    );
    assert.equal(res.codes, [], JSON.stringify(res.errors));
  }
  const retired = await putXliff(client.owner.token, path, exported);
  assert.is(retired.status, 409, retired.text);
  assert.is(retired.body.error.code, 'VERSION_NOT_EDITABLE');
});

translations('a large import leaves the event loop free: /healthz answers while the file is parsed', async () => {
  // On SQLite whatever the dimension: there the import does no I/O between the end of the body and its answer
  // but the parse, so the order of the answers shows whether the parse held the event loop. (On PostgreSQL the
  // version lookup before the parse is real I/O, during which /healthz answers either way.)
  const sqlite = await startTestServer({ env: DOMAIN_TEST_ENV, backend: 'sqlite' });
  try {
    const client = await buildClient(sqlite);
    const template = await publishedTemplate(sqlite, client, CONTENT, 'Pump overhaul, long texts');
    const path = xlfPath(template.templateId, template.versionId);
    const exported = await fetch(sqlite.url + path, { headers: { authorization: `Bearer ${client.owner.token}` } });
    // every unit a long text with markup characters: a file of several MiB, below the 8 MiB limit
    const filler = ' Prüfen & <notieren> „Wert“.\r\n'.repeat(20_000);
    const body = Buffer.from(
      translate(await exported.text(), (id) => `${GERMAN[id]}${filler}`),
      'utf8',
    );
    assert.ok(body.length > 5 * 1024 * 1024 && body.length < 8 * 1024 * 1024, `${body.length} bytes`);

    // Once the daemon has read the PUT's whole body (its request's 'end', seen through Node's diagnostics
    // channel; during the upload the loop is free either way), /healthz is asked again and again until the PUT
    // has answered, and the order of the answers is kept. Before the parse moved to a worker thread: PUT first.
    const order: string[] = [];
    let asking: Promise<void> | undefined;
    const askHealth = async () => {
      while (!order.includes('PUT')) {
        const health = await fetch(`${sqlite.url}/healthz`);
        await health.arrayBuffer();
        assert.is(health.status, 200);
        order.push('healthz');
      }
    };
    const onRequest = (message: unknown) => {
      const { request } = message as { request: http.IncomingMessage };
      if (request.method === 'PUT' && request.url === path)
        request.once('end', () => {
          asking = askHealth();
        });
    };
    diagnosticsChannel.subscribe('http.server.request.start', onRequest);
    let put;
    try {
      put = await fetch(sqlite.url + path, {
        method: 'PUT',
        headers: { authorization: `Bearer ${client.owner.token}`, 'content-type': 'application/xliff+xml' },
        body,
      });
      order.push('PUT');
    } finally {
      diagnosticsChannel.unsubscribe('http.server.request.start', onRequest);
    }
    const answer = await put.text();
    assert.is(put.status, 200, answer.slice(0, 300));
    assert.is(JSON.parse(answer).data.changed, 8);
    assert.ok(asking, "the PUT's body was read");
    await asking;
    // on the event loop, the parse held every /healthz until the import had answered
    assert.ok(order.indexOf('PUT') > 0, `order of the answers: ${order.join(' ')}`);
    // and the long texts came through byte for byte
    const again = await fetch(sqlite.url + path, { headers: { authorization: `Bearer ${client.owner.token}` } });
    assert.is(unitsOf(await again.text()).get('step:measure:body')!.target, `${GERMAN_BODY}${filler}`);
  } finally {
    await sqlite.stop();
  }
});

translations.run();

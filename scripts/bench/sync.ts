/**
 * `npm run bench -- --only=sync`: the operator's offline queue draining after
 * the network returns. One operator's browser (Debian's Chromium) holds 500
 * step recordings queued offline on one job of 500 NUMBER steps; the network
 * comes back and the sync engine (src/app/offline/sync.ts, the app's own code,
 * bundled by esbuild and run in a page of the app's origin) sends them in
 * order, each with its Idempotency-Key and expectedRevision. Measured: the
 * seconds from "online" to an empty queue, and the requests the browser sent
 * (counted by the browser, not by the engine); then checked through the API:
 * 500 records, the job at revision 500.
 */
import { chromium } from 'playwright-core';
import { startTestServer } from '../../test/helpers/server';
import { buildClient, buildUser } from '../../test/helpers/factories';
import { createJob, publishedTemplate } from '../../test/helpers/domain';
import { gql } from '../../test/helpers/graphql';
import { harnessPage } from '../../test/helpers/offline-harness';

const RECORDINGS = 500;

export async function syncScenario(): Promise<Record<string, unknown>> {
  const server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '100000', WIP_LOG_LEVEL: 'warn' } });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const client = await buildClient(server);
    const content = {
      sections: [
        {
          id: 'all',
          title: 'Readings',
          steps: Array.from({ length: RECORDINGS }, (_, i) => ({
            id: `s${i + 1}`,
            title: `Reading ${i + 1}`,
            fields: [{ key: 'v', label: 'Value', type: 'NUMBER', unit: 'bar', min: 0, max: 100, required: true }],
          })),
        },
      ],
    };
    const template = await publishedTemplate(server, client, content, 'Sync benchmark');
    const operator = await buildUser(server, client, { roles: ['operator'] });
    const job = (await createJob(server, client.owner.token, { templateId: template.templateId, assigneeIds: [operator.id] })) as {
      id: number;
    };
    const jobId = `Job:${job.id}`;

    const context = await browser.newContext();
    // a page of the app's origin that runs none of the app: only the harness drains the queue
    const page = await harnessPage(context, server.url, operator, client.id);
    const user = `${client.id}:${operator.id}`;
    await page.evaluate(`wipOffline.clearAll().then(() => wipOffline.fetchAndStoreJob(${JSON.stringify(user)}, ${JSON.stringify(jobId)}))`);

    await context.setOffline(true);
    const queued = Date.now();
    await page.evaluate(`(async () => {
      const job = (await wipOffline.localJobView(${JSON.stringify(user)}, ${JSON.stringify(jobId)})).job;
      for (let i = 1; i <= ${RECORDINGS}; i++) await wipOffline.enqueueRecord(${JSON.stringify(user)}, job, { stepId: 's' + i, status: 'DONE', values: [{ key: 'v', value: i % 101 }] });
    })()`);
    const queueMs = Date.now() - queued;

    let requests = 0;
    page.on('request', (request) => {
      if (request.url().includes('/api/')) requests++;
    });
    await context.setOffline(false);
    const started = Date.now();
    await page.evaluate(
      `wipOffline.startSync({ id: ${operator.id}, clientId: ${client.id} }); wipOffline.drained(${JSON.stringify(user)}, 600000)`,
    );
    const seconds = (Date.now() - started) / 1000;

    const check = await gql<{ job: { revision: number; records: { stepId: string }[] } }>(
      server,
      client.owner.token,
      'query($id: ID!) { job(id: $id) { revision records { stepId } } }',
      { id: jobId },
    );
    const records = check.data!.job.records.length;
    const revision = check.data!.job.revision;
    if (records !== RECORDINGS) throw new Error(`expected ${RECORDINGS} records, the server has ${records}`);
    const figures = {
      recordings: RECORDINGS,
      seconds: Number(seconds.toFixed(2)),
      perSecond: Math.round(RECORDINGS / seconds),
      requests,
      queueSeconds: Number((queueMs / 1000).toFixed(2)),
      revision,
    };
    console.log(
      `sync of ${RECORDINGS} queued recordings: ${figures.seconds} s (${figures.perSecond}/s), ${requests} requests; queued offline in ${figures.queueSeconds} s`,
    );
    return { sync: figures };
  } finally {
    await browser.close();
    await server.stop();
  }
}

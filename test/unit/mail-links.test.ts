import os from 'node:os';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '#config';
import { publicBaseUrl } from '#mail/templates';

const links = suite('links in mails (publicBaseUrl)');
const config = (env: Record<string, string>) => loadConfig({ env: { WIP_DATA_DIR: os.tmpdir(), ...env } });

links('publicUrl wins, without its trailing slash', () => {
  assert.is(
    publicBaseUrl({ config: config({ WIP_PUBLIC_URL: 'https://wip.example.test/' }), served: { scheme: 'http', port: 1 } }),
    'https://wip.example.test',
  );
});

links("without publicUrl: the served scheme and port, and this machine's name when bound to every interface", () => {
  assert.is(publicBaseUrl({ config: config({}), served: { scheme: 'https', port: 8443 } }), `https://${os.hostname()}:8443`);
  assert.is(publicBaseUrl({ config: config({ WIP_HOST: '::' }) }), `http://${os.hostname()}:8080`);
  assert.is(publicBaseUrl({ config: config({ WIP_HOST: '::1', WIP_TLS_SELF_SIGNED: 'true' }) }), 'https://[::1]:8080');
});

links.run();

import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Command } from 'commander';
import { loadOrCreateSelfSignedTls, selfSignedHosts } from '#lib/tls';
import { createApp } from '#app';
import { closeDeps, createDeps } from '#composition';
import type { AppDeps } from '#workers';
import { startMaintenance } from '#ops/maintenance';
import { removePidFile, runningDaemonPid, writePidFile, writeServedAddress } from '#ops/pidfile';
import { lostSqliteDatabase, setLostDatabaseAside } from '#ops/lost-database';
import { fileStamp } from '#lib/paths';
import type { Config } from '#config';
import { publicBaseUrl } from '#mail/templates';
import { bootstrap, type BootstrapReport } from '#ops/bootstrap';
import { CliError, configFrom } from './context';
import { removeInterruptedUploads } from '#storage';
import { inTurnSlices } from '#lib/turn-slices';
import { answerClientError } from '#http/client-error';
import { installCrashGuard } from '#http/crash-guard';
import { drainOnClose } from '#http/connection-drain';

/**
 * At most about this much request work (ms) between two polls of the event
 * loop while requests wait: ~4 user-list pages; the extra poll and immediates
 * a slice costs a few µs.
 */
const REQUEST_SLICE_MS = 2;

export interface RunningServer {
  server: http.Server | https.Server;
  deps: AppDeps;
  url: string;
  /** with TLS: the certificate clients should trust (the generated CA with --tls-self-signed) */
  tls?: { selfSigned: boolean; caFile?: string; ca?: string };
  /** with TLS and httpRedirectPort: the plain-HTTP redirector's URL */
  redirectUrl?: string;
  stop(): Promise<void>;
}

/**
 * Bootstraps the data directory and serves HTTP, or HTTPS when configured
 * (tlsCert/tlsKey, or tlsSelfSigned), optionally with a plain-HTTP port that
 * redirects to HTTPS. Used by `wip serve` and by the tests, so both exercise
 * the same start-up path.
 */
export async function startServer(
  deps: AppDeps,
  options: { newDatabase?: boolean } = {},
): Promise<RunningServer & { report: BootstrapReport }> {
  // Claim the data directory first: two daemons must never migrate or serve one database.
  writePidFile(deps.config.dataDir);
  let tls: LoadedTls | undefined;
  let report: BootstrapReport;
  try {
    // certificate problems first: they must not leave a half-started daemon behind
    tls = loadTls(deps);
    report = await bootstrap(deps, { newDatabase: options.newDatabase });
    // keys in progress of this node's last process are released before a request can meet them
    await deps.keyLeases.start();
    await deps.dataEpoch.load();
    const interrupted = removeInterruptedUploads(deps.config.dataDir);
    if (interrupted) deps.logger.warn({ files: interrupted }, 'removed temporary files of uploads interrupted by the last stop');
  } catch (error) {
    removePidFile(deps.config.dataDir);
    throw error;
  }
  // an uncaught exception fails its request, not the daemon (docs/reliability.md)
  installCrashGuard(deps.logger);
  deps.mailer.start();
  deps.push.start();
  deps.webhooks.start();
  deps.schedules.start();
  const app = createApp(deps);
  const { tlsCiphers: ciphers, tlsMinVersion: minVersion } = deps.config;
  // Requests run in slices of the event loop's time so new connections are
  // accepted and requests read while the server is busy (src/lib/turn-slices.ts).
  const handle = inTurnSlices(app.callback(), REQUEST_SLICE_MS);
  const server = tls ? https.createServer({ key: tls.key, cert: tls.cert, ciphers, minVersion }, handle) : http.createServer(handle);
  const closeServer = drainOnClose(server);
  // Keep-alive sockets are short-lived so a stop is not held up by idle clients.
  server.keepAliveTimeout = 5_000;
  let port: number;
  try {
    port = await listen(server, deps.config.port, deps.config.host);
  } catch (error) {
    removePidFile(deps.config.dataDir);
    throw error;
  }
  let redirect: { server: http.Server; port: number; close(): Promise<void> } | undefined;
  if (tls && deps.config.httpRedirectPort > 0) {
    const redirector = http.createServer(redirectToHttps(port, deps.config.publicUrl));
    try {
      const close = drainOnClose(redirector);
      redirect = { server: redirector, port: await listen(redirector, deps.config.httpRedirectPort, deps.config.host), close };
    } catch (error) {
      await closeServer();
      removePidFile(deps.config.dataDir);
      throw error;
    }
  }
  deps.served = { scheme: tls ? 'https' : 'http', port };
  // for other processes (wip doctor): what is really served, whatever their configuration says
  writeServedAddress(deps.config.dataDir, {
    pid: process.pid,
    ...deps.served,
    host: deps.config.host,
    ...(redirect && { redirectPort: redirect.port }),
  });
  if (deps.config.smtpUrl && !deps.config.publicUrl) {
    deps.logger.warn(
      { linkBase: publicBaseUrl(deps) },
      `publicUrl (WIP_PUBLIC_URL) is not set: links in mails will start with ${publicBaseUrl(deps)}; set it to the URL users reach`,
    );
  }
  // after listening, a server error (e.g. accept failing under EMFILE) is logged, never an uncaught crash
  for (const s of [server, redirect?.server]) s?.on('error', (error) => deps.logger.error({ err: error }, 'server error'));
  // what Node's parser refuses (431, 400, 408) is answered with the error envelope, not a bare status line
  server.on('clientError', answerClientError);
  // Log retention on start, then daily; a due scheduled backup runs in the
  // background so it does not delay serving.
  const maintenance = startMaintenance(deps);
  await maintenance.runOnce({ backups: false });
  void maintenance.runOnce();
  const shownHost = deps.config.host === '0.0.0.0' || deps.config.host === '::' ? 'localhost' : deps.config.host;
  const hostInUrl = shownHost.includes(':') ? `[${shownHost}]` : shownHost;
  let stopping: Promise<void> | undefined;
  return {
    server,
    deps,
    report,
    url: `${tls ? 'https' : 'http'}://${hostInUrl}:${port}`,
    ...(tls && { tls: { selfSigned: tls.selfSigned, caFile: tls.caFile, ca: tls.ca } }),
    ...(redirect && { redirectUrl: `http://${hostInUrl}:${redirect.port}` }),
    stop() {
      // Stop accepting, let in-flight requests finish, then close the database.
      stopping ??= (async () => {
        // open event streams would keep the server from closing
        deps.eventStreams.closeAll();
        deps.logTail.closeAll();
        await Promise.all([closeServer(), redirect?.close()]);
        await maintenance.stop();
        await closeDeps(deps);
        removePidFile(deps.config.dataDir);
      })();
      return stopping;
    },
  };
}

function listen(server: http.Server | https.Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

interface LoadedTls {
  key: string | Buffer;
  cert: string | Buffer;
  selfSigned: boolean;
  ca?: string;
  caFile?: string;
}

/** The certificate and key to serve, or undefined for plain HTTP. @throws Error naming an unreadable file. */
function loadTls(deps: AppDeps): LoadedTls | undefined {
  const { tlsCert, tlsKey, tlsSelfSigned, tlsHosts, dataDir } = deps.config;
  if (tlsCert && tlsKey) {
    const read = (file: string, what: string) => {
      try {
        return fs.readFileSync(file);
      } catch (error) {
        throw new Error(`cannot read the TLS ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
          cause: error,
        });
      }
    };
    return { cert: read(tlsCert, 'certificate'), key: read(tlsKey, 'key'), selfSigned: false };
  }
  if (!tlsSelfSigned) return undefined;
  const hosts = selfSignedHosts(tlsHosts);
  const material = loadOrCreateSelfSignedTls(dataDir, hosts, deps.clock.now());
  if (material.created.ca)
    deps.logger.info({ caFile: material.caFile }, 'generated a local certificate authority; clients trust it by importing the CA file');
  if (material.created.server) deps.logger.info({ hosts }, 'issued a server certificate');
  return { key: material.key, cert: material.cert, selfSigned: true, ca: material.ca, caFile: material.caFile };
}

/**
 * The plain-HTTP side: every request is sent to the same host and path over
 * HTTPS (to publicUrl's origin when configured). 301 for GET/HEAD, 308 for the
 * rest so a method and body are never silently turned into a GET.
 */
function redirectToHttps(httpsPort: number, publicUrl: string): http.RequestListener {
  let origin: string | undefined;
  if (publicUrl) {
    try {
      const parsed = new URL(publicUrl);
      if (parsed.protocol === 'https:') origin = parsed.origin;
    } catch {
      origin = undefined;
    }
  }
  return (req, res) => {
    const host = (req.headers.host ?? 'localhost').replace(/:\d+$/, '');
    const target = (origin ?? `https://${host}${httpsPort === 443 ? '' : `:${httpsPort}`}`) + (req.url ?? '/');
    res.statusCode = req.method === 'GET' || req.method === 'HEAD' ? 301 : 308;
    res.setHeader('Location', target);
    res.setHeader('Content-Length', '0');
    res.end();
  };
}

/**
 * What the first start tells the installer: the administrator's password when
 * generated (shown once; also kept in the 0600 file for an installer who missed
 * it) and where to go next — the console, at the address users reach (publicUrl,
 * else this machine's name when listening on every interface), where the
 * password can be changed.
 */
function firstStartLines(deps: AppDeps, report: BootstrapReport): string {
  const password = report.generatedAdminPassword
    ? `Created system administrator "admin" with password: ${report.generatedAdminPassword}\n(also written to ${report.initialPasswordFile})\n`
    : 'Created system administrator "admin" with the configured adminPassword (WIP_ADMIN_PASSWORD)\n';
  return (
    password +
    `Admin console: ${publicBaseUrl(deps)}/console/ — sign in as "admin" and change the password there (Change password), or with "wip admin reset-password"\n`
  );
}

interface ServeOptions {
  host?: string;
  port?: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsSelfSigned?: boolean;
  tlsHosts?: string;
  httpRedirectPort?: string;
  logFormat?: string;
  newDatabase?: boolean;
}

/**
 * --new-database: start anew on an initialised data directory whose database was lost (src/ops/lost-database.ts).
 * A lost SQLite file is kept aside, never deleted; a sound database is never touched (the flag then changes nothing).
 */
function setAsideLostDatabase(config: Config): void {
  if (config.databaseUrl) return;
  const pid = runningDaemonPid(config.dataDir);
  if (pid !== null) throw new CliError(`--new-database refused: the daemon (pid ${pid}) is serving ${config.dataDir}`);
  const problem = lostSqliteDatabase(config.dataDir);
  if (!problem) return;
  const moved = setLostDatabaseAside(config.dataDir, fileStamp(new Date()));
  process.stderr.write(
    `wip: starting with a new, empty database; the lost one is kept as ${moved.join(', ') || '(nothing: it did not exist)'}\n`,
  );
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description(
      'run the daemon: bootstrap the data directory if needed, then serve HTTP, or HTTPS with --tls-cert/--tls-key or --tls-self-signed',
    )
    .option('--host <host>', 'interface to listen on (env WIP_HOST, default 0.0.0.0)')
    .option('--port <port>', 'port to listen on (env WIP_PORT, default 8080)')
    .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (chain) (env WIP_TLS_CERT)')
    .option('--tls-key <file>', 'the PEM private key of --tls-cert (env WIP_TLS_KEY)')
    .option('--tls-self-signed', 'serve HTTPS with a certificate from a local CA kept in <data-dir>/tls (env WIP_TLS_SELF_SIGNED)')
    .option(
      '--tls-hosts <names>',
      'comma-separated host names/IPs for --tls-self-signed (env WIP_TLS_HOSTS; default this host, localhost, loopback)',
    )
    .option('--http-redirect-port <port>', 'with TLS: also listen here on plain HTTP and redirect to HTTPS (env WIP_HTTP_REDIRECT_PORT)')
    .option('--log-format <format>', 'auto (readable lines on a terminal, JSON otherwise), json or pretty (env WIP_LOG_FORMAT)')
    .option(
      '--new-database',
      'start anew although the data directory was initialised and its database is lost (empty, truncated, unreadable, missing): the lost file is kept aside as wip.db.lost-<time>. Restoring a backup ("wip restore") is nearly always what you want instead',
    )
    .action(async (opts: ServeOptions, command: Command) => {
      const config = configFrom(command, {
        host: opts.host,
        port: opts.port,
        tlsCert: opts.tlsCert,
        tlsKey: opts.tlsKey,
        tlsSelfSigned: opts.tlsSelfSigned,
        tlsHosts: opts.tlsHosts,
        httpRedirectPort: opts.httpRedirectPort,
        logFormat: opts.logFormat,
      });
      const newDatabase = opts.newDatabase === true;
      if (newDatabase) setAsideLostDatabase(config);
      const deps = createDeps(config, { newDatabase });
      let running;
      try {
        running = await startServer(deps, { newDatabase });
      } catch (error) {
        await closeDeps(deps);
        throw error;
      }
      const { report } = running;
      if (report.adminCreated) process.stdout.write(firstStartLines(deps, report));
      // Signal handlers first: whoever waits for the line below may stop the daemon the moment it sees it.
      const stopped = new Promise<void>((resolve) => {
        const shutdown = (signal: string) => {
          deps.logger.info({ signal }, 'shutting down');
          running.stop().then(resolve, (error) => {
            deps.logger.error({ err: error }, 'shutdown failed');
            process.exitCode = 1;
            resolve();
          });
        };
        process.once('SIGTERM', () => shutdown('SIGTERM'));
        process.once('SIGINT', () => shutdown('SIGINT'));
      });
      if (report.preUpgradeBackup) deps.logger.info({ file: report.preUpgradeBackup }, 'backup taken before the upgrade');
      // Exactly one line with the URL, whatever the log level: scripts and operators wait for it.
      if (deps.logger.isLevelEnabled('info')) {
        deps.logger.info(
          {
            url: running.url,
            dataDir: config.dataDir,
            ...(running.tls?.caFile && { caFile: running.tls.caFile }),
            ...(running.redirectUrl && { redirectUrl: running.redirectUrl }),
          },
          `wip listening on ${running.url}`,
        );
      } else process.stdout.write(`wip listening on ${running.url}\n`);
      await stopped;
    });
}

import http from 'node:http';
import type { Command } from 'commander';
import { createApp } from '../app';
import { closeDeps, createDeps, type Deps } from '../deps';
import { bootstrap, type BootstrapReport } from '../services/bootstrap';
import { configFrom } from './context';

export interface RunningServer {
  server: http.Server;
  deps: Deps;
  url: string;
  stop(): Promise<void>;
}

/**
 * Bootstraps the data directory and serves HTTP. Used by `wip serve` and by
 * the tests, so both exercise the same start-up path.
 */
export async function startServer(deps: Deps): Promise<RunningServer & { report: BootstrapReport }> {
  const report = await bootstrap(deps);
  deps.mailer.start();
  const app = createApp(deps);
  const server = http.createServer(app.callback());
  // Keep-alive sockets are short-lived so a stop is not held up by idle clients.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.config.port, deps.config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : deps.config.port;
  const shownHost = deps.config.host === '0.0.0.0' || deps.config.host === '::' ? 'localhost' : deps.config.host;
  let stopping: Promise<void> | undefined;
  return {
    server,
    deps,
    report,
    url: `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`,
    stop() {
      // Stop accepting, let in-flight requests finish, then close the database.
      stopping ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await closeDeps(deps);
      })();
      return stopping;
    },
  };
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the daemon: bootstrap the data directory if needed, then serve HTTP')
    .option('--host <host>', 'interface to listen on (env WIP_HOST, default 0.0.0.0)')
    .option('--port <port>', 'port to listen on (env WIP_PORT, default 8080)')
    .action(async (opts: { host?: string; port?: string }, command: Command) => {
      const config = configFrom(command, { host: opts.host, port: opts.port });
      const deps = createDeps(config);
      let running;
      try {
        running = await startServer(deps);
      } catch (error) {
        await closeDeps(deps);
        throw error;
      }
      const { report } = running;
      if (report.generatedAdminPassword) {
        // Shown once; also kept in the 0600 file for an installer who missed it.
        process.stdout.write(
          `Created system administrator "admin" with password: ${report.generatedAdminPassword}\n` +
            `(also written to ${report.initialPasswordFile}; change it with "wip admin reset-password")\n`,
        );
      }
      // Exactly one line with the URL, whatever the log level: scripts and operators wait for it.
      if (deps.logger.isLevelEnabled('info')) deps.logger.info({ url: running.url, dataDir: config.dataDir }, `wip listening on ${running.url}`);
      else process.stdout.write(`wip listening on ${running.url}\n`);
      await new Promise<void>((resolve) => {
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
    });
}

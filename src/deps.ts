import type { KeyObject } from 'node:crypto';
import type { Config } from '#config';
import type { Database } from '#db/connection';
import type { Clock } from '#lib/clock';
import type { Metrics } from '#lib/metrics';
import type { NetworkPolicy } from '#lib/network-policy';
import type { PasswordHasher } from '#lib/password-hasher';
import type { VerifiedClaims, VerifiedTokenCache } from '#lib/verified-token-cache';
import type { XliffPool } from '#lib/xliff-pool';
import type { ImagePool } from '#lib/image-pool';
import type { Logger } from '#logger';
import type { LicenseCache } from '#licensing/cache';
import type { HotPathLookups } from '#repos/hot-path';
import type { Secrets } from '#secrets';
import type { FileStore } from '#storage';

/**
 * Everything a service, a repository call or a CLI command needs, built once
 * (src/composition.ts) and passed down. No module-level singletons: tests
 * start many servers in one process.
 *
 * This file only declares: it imports types from the layers below services
 * (config, logger, lib, db, repos, licensing) and nothing above, so a service
 * never depends on the background workers, the HTTP layer or the composition
 * root. What a service must tell the workers goes through `signals`.
 */
export interface Deps {
  config: Config;
  db: Database;
  clock: Clock;
  logger: Logger;
  passwords: PasswordHasher;
  /** XLIFF files read and written in a worker thread, off the event loop (translations) */
  xliff: XliffPool;
  /** uploaded images judged, and images made safe for PDFs, in a worker thread (lib/images.ts) */
  images: ImagePool;
  secrets: Secrets;
  /** the JWT signing key as a KeyObject: a plain string makes jsonwebtoken try to parse a PEM on every verify */
  jwtKey: KeyObject;
  /** prepared statements for what every request reads (session, roles, license state) */
  hotPath: HotPathLookups;
  /** access tokens already verified (signature, issuer, audience), by token text */
  verifiedTokens: VerifiedTokenCache<VerifiedClaims>;
  /** trusted license-signing keys and the last verified installed key */
  licenseCache: LicenseCache;
  /** uploaded and generated files under <data-dir>/files */
  storage: FileStore;
  /** Prometheus metrics of this instance (own registry), served by GET /metrics */
  metrics: Metrics;
  /** where webhooks may be delivered (config webhookAllowedNetworks); the sender and the webhook service share it */
  webhookPolicy: NetworkPolicy;
  /** set by startServer once listening: the scheme and port really served (links in mails) */
  served?: { scheme: 'http' | 'https'; port: number };
  /** the narrow port from services to the background workers (src/workers) */
  signals: Signals;
}

/**
 * What services tell the background workers, and nothing more. Each is called
 * after the commit of the change it announces (see db/transaction afterCommit),
 * never waits for the worker (except deliverMail) and never throws.
 * Tests without workers use no-op signals (test/helpers/service-deps.ts).
 */
export interface Signals {
  /** mail rows were committed to the outbox: deliver them soon */
  mailQueued(): void;
  /** deliver the due mail now and wait (a command or request that reports whether it went out); how many were handled */
  deliverMail(): Promise<number>;
  /** web push rows were committed: send them soon */
  pushQueued(): void;
  /** webhook deliveries were committed: send them soon */
  webhooksDue(): void;
  /** events of the client were committed: wake its live streams */
  clientEvent(clientId: number): void;
  /** a user session ended (sign-out): close its live streams */
  sessionEnded(sessionId: number): void;
  /** a user was disabled or deleted: close their live streams */
  userEnded(clientId: number, userId: number): void;
  /** log rows were written: wake the system administrators' live log tails */
  logWritten(): void;
  /** a schedule of recurring jobs was created, edited or resumed: handle its occurrences soon */
  schedulesChanged(): void;
}

import jwt from 'jsonwebtoken';
import type { Deps } from '#deps';
import { tenantScope, type TenantScope } from '#db/tenant';
import { withTransaction } from '#db/transaction';
import { AppError, invalidCredentials, tokenExpired, unauthorized } from '#errors';
import { hashToken, randomToken } from '#lib/tokens';
import type { AccessClaims, VerifiedClaims } from '#lib/verified-token-cache';
import { findClientsByIds } from '#repos/clients';
import {
  findRefreshTokenAcrossClients,
  insertRefreshToken,
  insertSession,
  markRefreshTokenUsed,
  markSessionRefreshTokensUsed,
  revokeSession,
} from '#repos/sessions';
import { findAdminByUsername, insertAdminSession, revokeAdminSession } from '#repos/system-admins';
import { findFirstUserWithRole, findUsersByEmailAcrossClients, getUserById, type UserWithRoles } from '#repos/users';
import type { Actor, RequestMeta, SystemAdminActor, UserActor } from './actor';
import type { UserSessionRecord } from '#repos/hot-path';
import type { SystemAdminRow, TwoFactorRequirement, UserStatus } from '#db/schema';
import { recordLogEntry, userActorName } from './security-log';
import { SECURITY_ADMIN } from '#policies/roles';
import {
  adminAccount,
  assertAccountNotLocked,
  assertNotLocked,
  clearFailedAttempts,
  clearFailedSignIns,
  recordFailedAttempt,
  recordFailedSignIn,
} from './lockout';
import { readSecuritySettings, twoFactorRequiredFor, twoFactorRequirementApplies } from './security-settings';
import { isTwoFactorEnabled, verifySecondFactor } from './two-factor';
import { whenReady, type Answer } from '#lib/answer';
import { consumeUserToken, findValidUserToken, issueUserToken, TWO_FACTOR_CHALLENGE_TTL_MS } from './user-tokens';

const ISSUER = 'wip';
const USER_AUDIENCE = 'wip-client';
const ADMIN_AUDIENCE = 'wip-admin';

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  /** opaque session-cookie value, for browsers */
  cookieToken: string;
  expiresIn: number;
  refreshExpiresIn: number;
}

export interface SignInResult extends IssuedTokens {
  user: UserWithRoles;
  /** the client's policy requires a second factor this user has not set up yet */
  twoFactorSetupRequired: boolean;
}

/** Password accepted, second factor pending: POST verify-two-factor with this token and a code. */
export interface TwoFactorChallenge {
  twoFactorRequired: true;
  challengeToken: string;
  expiresIn: number;
}

/** Which sign-in route started a challenge: verify-two-factor answers in that route's shape. */
export type SignInFlavour = 'v1' | 'v2';

/**
 * Checks an email and password. The same email may exist in several clients:
 * the password is checked against each; one match signs in, several ask the
 * caller to choose. Unknown emails cost the same bcrypt time as known ones.
 * Failures count toward the lockout of the email and the IP; a locked email or
 * IP is refused before the password is looked at. A user with two-factor on
 * gets a challenge instead of tokens.
 * @throws AppError INVALID_CREDENTIALS, CLIENT_SELECTION_REQUIRED, ACCOUNT_DISABLED, SSO_REQUIRED, TOO_MANY_ATTEMPTS
 */
export async function signIn(
  deps: Deps,
  input: { email: string; password: string; clientId?: number; flavour?: SignInFlavour },
  meta: RequestMeta,
): Promise<SignInResult | TwoFactorChallenge> {
  await assertNotLocked(deps, input.email, meta);
  const candidates = (await findUsersByEmailAcrossClients(deps.db.kysely, input.email)).filter(
    (user) => user.password_hash !== null && (input.clientId === undefined || user.client_id === input.clientId),
  );
  if (candidates.length === 0) {
    await deps.passwords.verifyAgainstDummy(input.password);
    await recordFailedAttempt(deps, { email: input.email, reason: 'unknown account or no password' }, meta);
    throw invalidCredentials();
  }
  const checks = await Promise.all(candidates.map((user) => deps.passwords.verify(input.password, user.password_hash!)));
  const matches = candidates.filter((_, index) => checks[index]);
  if (matches.length === 0) {
    const only = candidates.length === 1 ? candidates[0] : undefined;
    await recordFailedAttempt(deps, { email: input.email, reason: 'wrong password', clientId: only?.client_id, userId: only?.id }, meta);
    throw invalidCredentials();
  }
  if (matches.length > 1) {
    const clients = await findClientsByIds(
      deps.db.kysely,
      matches.map((user) => user.client_id),
    );
    throw new AppError('CLIENT_SELECTION_REQUIRED', 'This account exists in several clients; choose one with clientId', {
      clients: clients.map((client) => ({ id: client.id, name: client.name })),
    });
  }
  const match = matches[0];
  if (match.status === 'disabled') throw new AppError('ACCOUNT_DISABLED', 'This account is disabled');
  const scope = tenantScope(match.client_id);
  // SSO enforced: passwords only for the client's owner (its first Security
  // Administrator), the break-glass account for when the IdP is down.
  if (
    (await readSecuritySettings(deps.db.kysely, scope)).ssoEnforced &&
    (await findFirstUserWithRole(deps.db.kysely, scope, SECURITY_ADMIN))?.id !== match.id
  ) {
    throw new AppError('SSO_REQUIRED', 'Your organisation signs in through single sign-on');
  }
  // With a second factor pending the failure count is kept: wrong codes add to
  // it, and re-entering the password must not reset it.
  const result = await finishSignIn(deps, scope, match.id, 'password', meta, input.flavour ?? 'v1');
  if (!('challengeToken' in result)) await clearFailedAttempts(deps, input.email);
  return result;
}

/**
 * Signs in a user whose identity an SSO provider vouched for: the same rules
 * as a correct password (lockout of the email, disabled accounts, the second
 * factor when enabled, the 2FA-setup requirement) and the same session, tokens
 * and `auth.sign_in` event. `method` names the provider kind (oidc, saml …).
 * @throws AppError ACCOUNT_DISABLED, TOO_MANY_ATTEMPTS
 */
export async function signInWithVerifiedIdentity(
  deps: Deps,
  scope: TenantScope,
  userId: number,
  method: string,
  meta: RequestMeta,
  flavour: SignInFlavour = 'v1',
): Promise<SignInResult | TwoFactorChallenge> {
  const user = await getUserById(deps.db.kysely, scope, userId);
  await assertNotLocked(deps, user.email, meta);
  if (user.status === 'disabled') throw new AppError('ACCOUNT_DISABLED', 'This account is disabled');
  return finishSignIn(deps, scope, userId, method, meta, flavour);
}

/**
 * The end of every sign-in once the first factor is proven: a challenge when
 * the user has a second factor (the token carries the route flavour and the
 * first factor's method), else the session.
 */
async function finishSignIn(
  deps: Deps,
  scope: TenantScope,
  userId: number,
  method: string,
  meta: RequestMeta,
  flavour: SignInFlavour,
): Promise<SignInResult | TwoFactorChallenge> {
  if (await isTwoFactorEnabled(deps, scope, userId)) {
    const challengeToken = await withTransaction(deps.db, { lockClient: scope.clientId }, (trx) =>
      issueUserToken(trx, scope, userId, 'two_factor', deps.clock.now(), TWO_FACTOR_CHALLENGE_TTL_MS, `${flavour}.${method}.`),
    );
    return { twoFactorRequired: true, challengeToken, expiresIn: Math.floor(TWO_FACTOR_CHALLENGE_TTL_MS / 1000) };
  }
  return completeSignIn(deps, scope, userId, method, meta);
}

async function completeSignIn(deps: Deps, scope: TenantScope, userId: number, method: string, meta: RequestMeta): Promise<SignInResult> {
  const tokens = await startUserSession(deps, scope, userId, meta);
  const user = await getUserById(deps.db.kysely, scope, userId);
  const settings = await readSecuritySettings(deps.db.kysely, scope);
  const twoFactorSetupRequired = twoFactorRequiredFor(settings, user.roles) && !(await isTwoFactorEnabled(deps, scope, userId));
  await recordLogEntry(deps, {
    event: 'auth.sign_in',
    message: `Signed in (${method})`,
    clientId: scope.clientId,
    userId,
    actor: { kind: 'user', id: userId, name: userActorName(user) },
    meta,
    data: { method },
  });
  return { ...tokens, user, twoFactorSetupRequired };
}

/**
 * Opens the session of a directory bearer token: the directory
 * vouched for the user, so the same checks as a correct password follow
 * (lockout of the email, disabled accounts, the same `auth.sign_in` event), but
 * no tokens of ours are issued — the directory token stays the credential and
 * the session ends when it expires. A bearer call cannot answer a challenge:
 * a user with a second factor needs a token the directory issued after a
 * multi-factor sign-in (`amr` mfa), else SECOND_FACTOR_NEEDED is returned for
 * the caller to refuse. The 2FA-setup requirement applies to the session as
 * to any other (only enrolment routes open).
 * @throws AppError ACCOUNT_DISABLED, TOO_MANY_ATTEMPTS
 */
export async function startDirectorySession(
  deps: Deps,
  scope: TenantScope,
  userId: number,
  meta: RequestMeta,
  token: { expiresAt: Date; multiFactor: boolean },
): Promise<{ sessionId: number } | 'SECOND_FACTOR_NEEDED'> {
  const user = await getUserById(deps.db.kysely, scope, userId);
  await assertNotLocked(deps, user.email, meta);
  if (user.status === 'disabled') throw new AppError('ACCOUNT_DISABLED', 'This account is disabled');
  if (!token.multiFactor && (await isTwoFactorEnabled(deps, scope, userId))) return 'SECOND_FACTOR_NEEDED';
  const now = deps.clock.now().toISOString();
  const session = await withTransaction(deps.db, { lockClient: scope.clientId }, (trx) =>
    insertSession(
      trx,
      scope,
      { user_id: userId, cookie_hash: null, expires_at: token.expiresAt.toISOString(), ip: meta.ip, user_agent: meta.userAgent },
      now,
    ),
  );
  await recordLogEntry(deps, {
    event: 'auth.sign_in',
    message: 'Signed in (directory)',
    clientId: scope.clientId,
    userId,
    meta,
    data: { method: 'directory' },
  });
  return { sessionId: session.id };
}

/** The caller of a session opened by a directory token. @throws AppError UNAUTHORIZED (ended, revoked, disabled) */
export async function actorFromDirectorySession(deps: Deps, sessionId: number): Promise<UserActor> {
  const session = await deps.hotPath.userSession(sessionId);
  if (!session) throw unauthorized('The session has ended');
  return userActor(deps, session, deps.clock.now(), 'bearer');
}

/**
 * Completes a sign-in that was answered with a challenge: a TOTP code or a
 * recovery code. Wrong codes count toward the lockout like wrong passwords.
 * @throws AppError TOKEN_INVALID (unknown or expired challenge), TWO_FACTOR_INVALID, TOO_MANY_ATTEMPTS, ACCOUNT_DISABLED
 */
export async function verifyTwoFactorSignIn(
  deps: Deps,
  input: { challengeToken: string; code: string },
  meta: RequestMeta,
): Promise<SignInResult & { flavour: SignInFlavour }> {
  const challenge = await findValidUserToken(deps, input.challengeToken, 'two_factor');
  const user = await getUserById(deps.db.kysely, challenge.scope, challenge.userId);
  await assertNotLocked(deps, user.email, meta);
  if (user.status === 'disabled') throw new AppError('ACCOUNT_DISABLED', 'This account is disabled');
  let method: string;
  try {
    method = await verifySecondFactor(deps, challenge.scope, user.id, input.code);
  } catch (error) {
    if (error instanceof AppError && error.code === 'TWO_FACTOR_INVALID') {
      await recordFailedAttempt(
        deps,
        { email: user.email, reason: 'wrong second factor', clientId: user.client_id, userId: user.id },
        meta,
      );
    }
    throw error;
  }
  await withTransaction(deps.db, (trx) => consumeUserToken(trx, challenge, deps.clock.now().toISOString()));
  await clearFailedAttempts(deps, user.email);
  // the token reads <flavour>.<first factor>.<random> (random base64url has no dots)
  const parts = input.challengeToken.split('.');
  const flavour: SignInFlavour = parts[0] === 'v2' ? 'v2' : 'v1';
  const firstFactor = parts.length === 3 ? parts[1] : 'password';
  return { ...(await completeSignIn(deps, challenge.scope, user.id, `${firstFactor}+${method}`, meta)), flavour };
}

/** Creates a session with its first refresh token and cookie value. */
export async function startUserSession(deps: Deps, scope: TenantScope, userId: number, meta: RequestMeta): Promise<IssuedTokens> {
  const now = deps.clock.now();
  const refreshToken = randomToken();
  const cookieToken = randomToken();
  const expiresAt = new Date(now.getTime() + deps.config.refreshTokenTtl).toISOString();
  const session = await withTransaction(deps.db, { lockClient: scope.clientId }, async (trx) => {
    const row = await insertSession(
      trx,
      scope,
      { user_id: userId, cookie_hash: hashToken(cookieToken), expires_at: expiresAt, ip: meta.ip, user_agent: meta.userAgent },
      now.toISOString(),
    );
    await insertRefreshToken(
      trx,
      scope,
      { session_id: row.id, token_hash: hashToken(refreshToken), expires_at: expiresAt },
      now.toISOString(),
    );
    return row;
  });
  return {
    accessToken: signAccessToken(deps, USER_AUDIENCE, { sub: String(userId), sid: session.id, cid: scope.clientId }),
    refreshToken,
    cookieToken,
    expiresIn: Math.floor(deps.config.accessTokenTtl / 1000),
    refreshExpiresIn: Math.floor(deps.config.refreshTokenTtl / 1000),
  };
}

export interface RefreshedTokens {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

/**
 * Rotates a refresh token: the presented one stops working and a new pair is
 * returned. Presenting an already-rotated token is treated as theft: the whole
 * session (the token family) is revoked.
 * @throws AppError UNAUTHORIZED, TOKEN_EXPIRED
 */
export async function refreshWithToken(deps: Deps, refreshToken: string, meta: RequestMeta): Promise<RefreshedTokens> {
  const record = await findRefreshTokenAcrossClients(deps.db.kysely, hashToken(refreshToken));
  if (!record) throw unauthorized('Invalid refresh token');
  const scope = tenantScope(record.client_id);
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  if (record.session_revoked_at !== null) throw unauthorized('The session has ended');
  if (record.used_at !== null) {
    await revokeSession(deps.db.kysely, scope, record.session_id, nowIso);
    await recordLogEntry(deps, {
      level: 'warn',
      event: 'auth.refresh_token_reuse',
      message: 'A rotated refresh token was presented again; the session was revoked',
      clientId: record.client_id,
      userId: record.user_id,
      // whoever holds a stolen token: not the user
      actor: null,
      meta,
      data: { sessionId: record.session_id },
    });
    throw unauthorized('Refresh token already used; the session was revoked');
  }
  if (record.expires_at <= nowIso || record.session_expires_at <= nowIso) throw tokenExpired();
  const next = randomToken();
  await withTransaction(deps.db, { lockClient: scope.clientId }, async (trx) => {
    if (!(await markRefreshTokenUsed(trx, scope, record.id, nowIso))) throw unauthorized('Refresh token already used');
    await insertRefreshToken(
      trx,
      scope,
      { session_id: record.session_id, token_hash: hashToken(next), expires_at: record.session_expires_at },
      nowIso,
    );
  });
  return refreshedTokens(deps, { userId: record.user_id, sessionId: record.session_id, clientId: record.client_id }, next);
}

/** Refresh for a caller already authenticated by cookie or bearer: new access token, rotated refresh token. */
export async function refreshForActor(deps: Deps, actor: UserActor): Promise<RefreshedTokens> {
  const nowIso = deps.clock.now().toISOString();
  const next = randomToken();
  const session = await deps.hotPath.userSession(actor.sessionId);
  if (!session) throw unauthorized();
  await withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    await markSessionRefreshTokensUsed(trx, actor.scope, actor.sessionId, nowIso);
    await insertRefreshToken(
      trx,
      actor.scope,
      { session_id: actor.sessionId, token_hash: hashToken(next), expires_at: session.expires_at },
      nowIso,
    );
  });
  return refreshedTokens(deps, actor, next);
}

function refreshedTokens(
  deps: Deps,
  session: { userId: number; sessionId: number; clientId: number },
  refreshToken: string,
): RefreshedTokens {
  return {
    accessToken: signAccessToken(deps, USER_AUDIENCE, { sub: String(session.userId), sid: session.sessionId, cid: session.clientId }),
    refreshToken,
    expiresIn: Math.floor(deps.config.accessTokenTtl / 1000),
  };
}

/** Ends the session: its access tokens, refresh tokens and cookie all stop working. */
export async function signOut(deps: Deps, actor: Actor): Promise<void> {
  const nowIso = deps.clock.now().toISOString();
  if (actor.kind === 'user') {
    await revokeSession(deps.db.kysely, actor.scope, actor.sessionId, nowIso);
    deps.signals.sessionEnded(actor.sessionId);
  } else await revokeAdminSession(deps.db.kysely, actor.sessionId, nowIso);
}

/**
 * A system administrator's sign-in, with the same brute-force defence as a
 * client user's: failures are security events and count toward the lockout of
 * the username and the IP.
 * @throws AppError INVALID_CREDENTIALS, TOO_MANY_ATTEMPTS
 */
export async function adminSignIn(
  deps: Deps,
  input: { username: string; password: string },
  meta: RequestMeta,
): Promise<{ token: string; expiresIn: number; admin: SystemAdminRow; cookieToken: string }> {
  const account = adminAccount(input.username);
  await assertAccountNotLocked(deps, account, meta);
  const admin = await findAdminByUsername(deps.db.kysely, input.username);
  const ok = admin
    ? await deps.passwords.verify(input.password, admin.password_hash)
    : await deps.passwords.verifyAgainstDummy(input.password);
  if (!admin || !ok) {
    await recordFailedSignIn(deps, account, { reason: admin ? 'wrong password' : 'unknown administrator', adminId: admin?.id }, meta);
    throw new AppError('INVALID_CREDENTIALS', 'Invalid username or password');
  }
  await clearFailedSignIns(deps, account);
  const now = deps.clock.now();
  // the session's cookie (the console) and its bearer token end together, at the access token's expiry
  const cookieToken = randomToken();
  const sessionId = await insertAdminSession(
    deps.db.kysely,
    {
      admin_id: admin.id,
      expires_at: new Date(now.getTime() + deps.config.accessTokenTtl).toISOString(),
      ip: meta.ip,
      user_agent: meta.userAgent,
      cookie_hash: hashToken(cookieToken),
      last_seen_at: now.toISOString(),
    },
    now.toISOString(),
  );
  await recordLogEntry(deps, {
    event: 'auth.admin_sign_in',
    message: `System administrator "${admin.username}" signed in`,
    adminId: admin.id,
    actor: { kind: 'admin', id: admin.id, name: admin.username },
    meta,
    data: { sessionId },
  });
  return {
    token: signAccessToken(deps, ADMIN_AUDIENCE, { sub: String(admin.id), sid: sessionId }),
    expiresIn: Math.floor(deps.config.accessTokenTtl / 1000),
    admin,
    cookieToken: ADMIN_COOKIE_PREFIX + cookieToken,
  };
}

/**
 * Resolves a bearer token to the caller. The signature, expiry and audience are
 * checked by jsonwebtoken (algorithm pinned); the session row decides revocation.
 * Not async: on SQLite the caller comes back without a promise (it runs on nearly every request).
 * @throws AppError UNAUTHORIZED, TOKEN_EXPIRED (synchronously, or as the promise's rejection)
 */
export function actorFromBearer(deps: Deps, token: string): Answer<Actor> {
  // one reading of the clock for the whole check
  const now = deps.clock.now();
  const claims = verifiedClaims(deps, token, Math.floor(now.getTime() / 1000));
  const nowIso = now.toISOString();
  if (claims.aud === ADMIN_AUDIENCE) {
    return whenReady(deps.hotPath.adminSession(claims.sid), (session) => {
      if (!session || session.revoked_at !== null || session.expires_at <= nowIso || String(session.admin_id) !== claims.sub) {
        throw unauthorized('The session has ended');
      }
      return adminActor(session, 'bearer');
    });
  }
  return whenReady(deps.hotPath.userSession(claims.sid), (session) => {
    if (!session || String(session.user_id) !== claims.sub || session.client_id !== claims.cid) throw unauthorized('The session has ended');
    return userActor(deps, session, now, 'bearer', nowIso);
  });
}

/** @throws AppError UNAUTHORIZED, TOKEN_EXPIRED */
function verifiedClaims(deps: Deps, token: string, nowSeconds: number): VerifiedClaims {
  const cached = deps.verifiedTokens.get(token, nowSeconds);
  if (cached) return cached;
  let claims: jwt.JwtPayload & Partial<AccessClaims>;
  try {
    claims = jwt.verify(token, deps.jwtKey, {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: [USER_AUDIENCE, ADMIN_AUDIENCE],
      clockTimestamp: nowSeconds,
    }) as jwt.JwtPayload & Partial<AccessClaims>;
  } catch (error) {
    if (error instanceof jwt.TokenExpiredError) throw tokenExpired();
    throw unauthorized('Invalid token');
  }
  if (typeof claims.sid !== 'number') throw unauthorized('Invalid token');
  deps.verifiedTokens.set(token, claims as VerifiedClaims);
  return claims as VerifiedClaims;
}

/**
 * A system administrator's session cookie value starts with this; a user's
 * never does (randomToken is base64url, which has no '.'), so one cookie name
 * serves both and a browser holds one session at a time.
 */
export const ADMIN_COOKIE_PREFIX = 'admin.';

function adminActor(session: { admin_id: number; username: string; session_id: number }, via: SystemAdminActor['via']): SystemAdminActor {
  return { kind: 'admin', adminId: session.admin_id, username: session.username, sessionId: session.session_id, via };
}

/** Resolves a session cookie; sessions idle longer than the idle TTL have ended. @throws AppError UNAUTHORIZED */
export async function actorFromCookie(deps: Deps, cookieToken: string): Promise<Actor> {
  if (cookieToken.startsWith(ADMIN_COOKIE_PREFIX)) return adminActorFromCookie(deps, cookieToken.slice(ADMIN_COOKIE_PREFIX.length));
  const session = await deps.hotPath.userSessionByCookie(hashToken(cookieToken));
  if (!session) throw unauthorized('The session has ended');
  const now = deps.clock.now();
  const idleMs = session.session_idle_timeout !== null ? session.session_idle_timeout * 1000 : deps.config.sessionIdleTtl;
  if (new Date(session.last_seen_at).getTime() + idleMs <= now.getTime()) {
    throw unauthorized('The session expired after inactivity');
  }
  return userActor(deps, session, now, 'cookie');
}

async function adminActorFromCookie(deps: Deps, cookieToken: string): Promise<SystemAdminActor> {
  const session = await deps.hotPath.adminSessionByCookie(hashToken(cookieToken));
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  if (!session || session.revoked_at !== null || session.expires_at <= nowIso) throw unauthorized('The session has ended');
  const lastSeen = Date.parse(session.last_seen_at ?? session.created_at);
  if (lastSeen + deps.config.sessionIdleTtl <= now.getTime()) throw unauthorized('The session expired after inactivity');
  if (now.getTime() - lastSeen > TOUCH_INTERVAL_MS) await deps.hotPath.touchAdminSession(session.session_id, nowIso);
  return adminActor(session, 'cookie');
}

/** How stale last_seen_at may get before a request writes it again (one write a minute, not per request). */
const TOUCH_INTERVAL_MS = 60_000;

/** Not async (see actorFromBearer): a promise only when last_seen_at is due a write on PostgreSQL. */
function userActor(
  deps: Deps,
  session: UserSessionRecord,
  now: Date,
  via: UserActor['via'],
  nowIso = now.toISOString(),
): Answer<UserActor> {
  if (session.revoked_at !== null || session.expires_at <= nowIso) throw unauthorized('The session has ended');
  if (session.status === 'disabled') throw unauthorized('The account is disabled');
  const actor = () => sharedActor(session, via);
  if (now.getTime() - Date.parse(session.last_seen_at) > TOUCH_INTERVAL_MS)
    return whenReady(deps.hotPath.touchSession(session.session_id, nowIso), actor);
  return actor();
}

/**
 * The caller of a session as it is now (its roles, organizations, license),
 * or undefined once the session has ended. Not a use of the session: what
 * holds a connection open (an event stream) re-reads its caller with this
 * before it sends, and must not keep an idle session alive.
 */
export async function currentUserActor(deps: Deps, sessionId: number, via: UserActor['via']): Promise<UserActor | undefined> {
  const session = await deps.hotPath.userSession(sessionId);
  const nowIso = deps.clock.now().toISOString();
  if (!session || session.revoked_at !== null || session.expires_at <= nowIso || session.status === 'disabled') return undefined;
  return sharedActor(session, via);
}

/** A cached session row is handed out as the same object until the database changes: so is its actor. */
function sharedActor(session: UserSessionRecord, via: UserActor['via']): UserActor {
  let actors = actorsByRecord.get(session);
  if (!actors) actorsByRecord.set(session, (actors = {}));
  return (actors[via] ??= buildUserActor(session, via));
}

/** Actors are read-only once built (nothing assigns to them), so one per session row and credential kind is shared. */
const actorsByRecord = new WeakMap<UserSessionRecord, Partial<Record<UserActor['via'], UserActor>>>();

function buildUserActor(session: UserSessionRecord, via: UserActor['via']): UserActor {
  const roles = session.roles;
  const requirement = (session.two_factor_required ?? 'off') as TwoFactorRequirement;
  return {
    kind: 'user',
    userId: session.user_id,
    clientId: session.client_id,
    scope: tenantScope(session.client_id),
    email: session.email,
    roles,
    licenseType: session.license_type,
    sessionId: session.session_id,
    via,
    twoFactorSetupRequired: !session.two_factor_enabled && twoFactorRequirementApplies(requirement, roles),
    user: {
      id: session.user_id,
      client_id: session.client_id,
      email: session.email,
      first_name: session.first_name,
      last_name: session.last_name,
      title: session.title,
      roles,
      license_type: session.license_type,
      available_to_org: session.available_to_org,
      status: session.status as UserStatus,
      created_at: session.user_created_at,
      updated_at: session.user_updated_at,
    },
  };
}

function signAccessToken(deps: Deps, audience: string, claims: AccessClaims): string {
  const iat = Math.floor(deps.clock.now().getTime() / 1000);
  return jwt.sign({ ...claims, iat, exp: iat + Math.floor(deps.config.accessTokenTtl / 1000) }, deps.jwtKey, {
    algorithm: 'HS256',
    issuer: ISSUER,
    audience,
    jwtid: randomToken(16),
  });
}

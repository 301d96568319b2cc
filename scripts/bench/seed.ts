/**
 * The seeded data directory of the whole-product benchmark (.bench/data):
 * 3 clients, 100,000 users, 10,000 templates (one published version each,
 * 10 steps with a NUMBER field), 100,000 jobs and 1,000,000 recorded step
 * values (one step record holds one value), plus 32 open jobs for the
 * recording operators. Client 1 is the big one (90,000 users, 8,000
 * templates, every job), so its meter report covers all 1M values.
 *
 * Clients and their owners are made through the API (licenses, settings,
 * owner sign-in as in production); the bulk rows are written directly with
 * prepared statements in large transactions — seeding is not what is being
 * measured. Reused when `.bench/data/seed.json` says it is complete; delete
 * the directory to seed again.
 */
import fs from 'node:fs';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import BetterSqlite3 from 'better-sqlite3';
import { parseContent, serializeContent } from '#domain/content';
import { json, root, startWip, stopProcess } from './harness';

export const SEED_DIR = path.join(root, '.bench', 'data');
const MARKER = path.join(SEED_DIR, 'seed.json');
export const SEED_PASSWORD = 'bench-user-password';
export const OPERATORS = 32;
const STEPS = 10;
const DAY = 86_400_000;

export interface SeedInfo {
  clients: { id: number; ownerEmail: string }[];
  users: number;
  templates: number;
  jobs: number;
  stepValues: number;
  /** client 1's user id range (for cursors deep in the list) */
  userIds: { first: number; last: number };
  /** the operators (emails) and their open jobs */
  operators: { email: string; jobId: number }[];
  /** the recorded times span [from, to] (UTC days) */
  from: string;
  to: string;
  seconds: number;
}

const PLAN = [
  { users: 90_000, templates: 8_000, jobs: 100_000 },
  { users: 5_000, templates: 1_000, jobs: 0 },
  { users: 5_000, templates: 1_000, jobs: 0 },
];

export async function seededDataDir(): Promise<SeedInfo> {
  if (fs.existsSync(MARKER)) return JSON.parse(fs.readFileSync(MARKER, 'utf8')) as SeedInfo;
  fs.rmSync(SEED_DIR, { recursive: true, force: true });
  fs.mkdirSync(SEED_DIR, { recursive: true });
  const started = Date.now();

  // 1. Through the API: the clients and their owners (and everything the product creates with them).
  const wip = await startWip(SEED_DIR);
  const clients: SeedInfo['clients'] = [];
  try {
    const admin = await json(`${wip.url}/api/admin/auth/sign-in`, 'POST', { username: 'admin', password: 'bench-admin-password' });
    for (let i = 0; i < PLAN.length; i++) {
      const ownerEmail = `owner${i + 1}@bench.test`;
      const created = await json(
        `${wip.url}/api/admin/client`,
        'POST',
        { name: `Bench ${i + 1}`, owner: { email: ownerEmail, password: SEED_PASSWORD }, seats: { full: 1, connect: 0 } },
        admin.token,
      );
      clients.push({ id: created.id, ownerEmail });
    }
  } finally {
    await stopProcess(wip.child);
  }

  // 2. Directly: the bulk rows, daemon stopped.
  const db = new BetterSqlite3(path.join(SEED_DIR, 'wip.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL'); // seeding only; the daemon runs with FULL
  const passwordHash = bcrypt.hashSync(SEED_PASSWORD, 10);
  const content = parseContent({
    sections: [
      {
        title: 'Inspection',
        steps: Array.from({ length: STEPS }, (_, s) => ({
          id: `s${s + 1}`,
          title: `Step ${s + 1}`,
          fields: [{ key: 'v', type: 'NUMBER', unit: 'bar', min: 0, max: 100, required: true }],
        })),
      },
    ],
  });
  const { json: contentJson, hash } = serializeContent(content);
  const now = Date.now();
  const iso = (t: number) => new Date(t).toISOString();
  const span = 365 * DAY;
  const insertUser =
    db.prepare(`INSERT INTO users (client_id, email, email_normalized, first_name, last_name, title, license_type, status, password_hash, available_to_org, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, '', 'full', 'active', ?, '[]', ?, ?)`);
  const insertRole = db.prepare("INSERT INTO user_roles (client_id, user_id, role) VALUES (?, ?, 'operator')");
  const insertTemplate =
    db.prepare(`INSERT INTO templates (client_id, title, description, tags, asset_class_id, owner_id, created_at, updated_at)
    VALUES (?, ?, '', '[]', NULL, ?, ?, ?)`);
  const insertVersion =
    db.prepare(`INSERT INTO template_versions (client_id, template_id, number, state, content, content_hash, created_by, updated_by, created_at, updated_at, published_at)
    VALUES (?, ?, 1, 'PUBLISHED', ?, ?, ?, ?, ?, ?, ?)`);
  const insertJob =
    db.prepare(`INSERT INTO jobs (client_id, template_id, version_id, title, priority, state, due_at, created_by, created_at, updated_at, started_at, completed_at)
    VALUES (?, ?, ?, ?, 'MEDIUM', ?, NULL, ?, ?, ?, ?, ?)`);
  const insertMember = db.prepare("INSERT INTO job_members (client_id, job_id, user_id, kind, created_at) VALUES (?, ?, ?, 'ASSIGNEE', ?)");
  const insertRecord =
    db.prepare(`INSERT INTO step_records (client_id, job_id, step_id, status, "values", comment, reason, recorded_by, recorded_at, captured_at)
    VALUES (?, ?, ?, 'DONE', ?, NULL, NULL, ?, ?, ?)`);
  const batch = <T>(items: number, size: number, each: (i: number) => T) => {
    for (let start = 0; start < items; start += size) {
      db.transaction(() => {
        for (let i = start; i < Math.min(items, start + size); i++) each(i);
      })();
    }
  };

  let userIds = { first: 0, last: 0 };
  const operators: SeedInfo['operators'] = [];
  for (const [c, plan] of PLAN.entries()) {
    const clientId = clients[c].id;
    const owner = db.prepare('SELECT id FROM users WHERE client_id = ? ORDER BY id LIMIT 1').pluck().get(clientId) as number;
    const ids: number[] = [];
    batch(plan.users, 20_000, (i) => {
      const email = `u${i}@c${c + 1}.bench.test`;
      const t = iso(now - span + (i * span) / plan.users);
      const id = Number(insertUser.run(clientId, email, email, `First${i}`, `Last${i}`, passwordHash, t, t).lastInsertRowid);
      insertRole.run(clientId, id);
      ids.push(id);
    });
    if (c === 0) userIds = { first: ids[0], last: ids[ids.length - 1] };
    const versions: { templateId: number; versionId: number }[] = [];
    batch(plan.templates, 5_000, (i) => {
      const t = iso(now - span + (i * span) / plan.templates);
      const templateId = Number(insertTemplate.run(clientId, `Template ${i}`, owner, t, t).lastInsertRowid);
      const versionId = Number(insertVersion.run(clientId, templateId, contentJson, hash, owner, owner, t, t, t).lastInsertRowid);
      versions.push({ templateId, versionId });
    });
    // every job of the plan is COMPLETED with all its steps recorded, spread over the year
    batch(plan.jobs, 5_000, (i) => {
      const { templateId, versionId } = versions[i % versions.length];
      const startedAt = now - span + Math.floor((i * span) / plan.jobs);
      const operator = ids[i % ids.length];
      const jobId = Number(
        insertJob.run(
          clientId,
          templateId,
          versionId,
          `Job ${i}`,
          'COMPLETED',
          owner,
          iso(startedAt),
          iso(startedAt + 3_600_000),
          iso(startedAt),
          iso(startedAt + 3_600_000),
        ).lastInsertRowid,
      );
      insertMember.run(clientId, jobId, operator, iso(startedAt));
      for (let s = 0; s < STEPS; s++) {
        insertRecord.run(
          clientId,
          jobId,
          `s${s + 1}`,
          `[{"key":"v","value":${(i + s) % 100},"outOfLimits":false}]`,
          operator,
          iso(startedAt + s * 60_000),
          iso(startedAt + s * 60_000),
        );
      }
    });
    if (c === 0) {
      // the recording operators: their own open job each
      const { templateId, versionId } = versions[0];
      batch(OPERATORS, OPERATORS, (i) => {
        const user = ids[i];
        const t = iso(now);
        const jobId = Number(
          insertJob.run(clientId, templateId, versionId, `Operator job ${i}`, 'IN_PROGRESS', owner, t, t, t, null).lastInsertRowid,
        );
        insertMember.run(clientId, jobId, user, t);
        operators.push({ email: `u${i}@c1.bench.test`, jobId });
      });
    }
  }
  // the meter's per-day counts, which the product keeps with every recording and job write (migration 0020)
  db.exec(`INSERT INTO usage_step_days (client_id, day, user_id, steps)
    SELECT client_id, substr(recorded_at, 1, 10), recorded_by, count(*) FROM step_records GROUP BY client_id, substr(recorded_at, 1, 10), recorded_by`);
  db.exec(`INSERT INTO usage_job_days (client_id, day, started, completed)
    SELECT client_id, day, sum(started), sum(completed) FROM (
      SELECT client_id, substr(started_at, 1, 10) AS day, 1 AS started, 0 AS completed FROM jobs WHERE started_at IS NOT NULL
      UNION ALL SELECT client_id, substr(completed_at, 1, 10), 0, 1 FROM jobs WHERE completed_at IS NOT NULL
    ) GROUP BY client_id, day`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();

  const info: SeedInfo = {
    clients,
    users: PLAN.reduce((n, p) => n + p.users, 0) + clients.length,
    templates: PLAN.reduce((n, p) => n + p.templates, 0),
    jobs: PLAN.reduce((n, p) => n + p.jobs, 0) + OPERATORS,
    stepValues: PLAN.reduce((n, p) => n + p.jobs, 0) * STEPS,
    userIds,
    operators,
    from: iso(now - span - DAY).slice(0, 10),
    to: iso(now + DAY).slice(0, 10),
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
  fs.writeFileSync(MARKER, JSON.stringify(info, null, 2) + '\n');
  return info;
}

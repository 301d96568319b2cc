import { sql, type CreateTableBuilder, type Kysely } from 'kysely';

// The work-instruction domain: organizations, assets, templates and their
// versions, signatures, jobs and what is recorded on them, faults, hand-offs,
// sensors, editorial analytics, tutorials and the hash-chained audit trail.
//
// Every table is a tenant table: client_id NOT NULL, indexes start with it, and
// a child references its parent through (client_id, parent_id), so the database
// itself refuses a link across clients. Parents therefore carry a unique index
// on (client_id, id). JSON documents are stored as text. Timestamps are
// ISO-8601 UTC text. Everything here is portable SQL (SQLite and PostgreSQL),
// including the partial unique indexes.

type Builder = CreateTableBuilder<any, any>;

function tenantTable(db: Kysely<any>, name: string): Builder {
  return db.schema
    .createTable(name)
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade')) as Builder;
}

/** (client_id, column) → parent(client_id, id): the cross-tenant link is impossible. */
function childOf(builder: Builder, column: string, parent: string, onDelete: 'cascade' | 'restrict' = 'cascade'): Builder {
  return builder.addForeignKeyConstraint(`${parent}_${column}_fk`, ['client_id', column], parent, ['client_id', 'id'], (c) =>
    c.onDelete(onDelete),
  ) as Builder;
}

async function tenantKey(db: Kysely<any>, table: string): Promise<void> {
  await db.schema.createIndex(`${table}_tenant_key`).on(table).columns(['client_id', 'id']).unique().execute();
}

export async function up(db: Kysely<any>): Promise<void> {
  // users get the (client_id, id) key too, so domain rows can reference them per tenant
  await tenantKey(db, 'users');

  await childOf(
    tenantTable(db, 'organizations')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('parent_id', 'integer')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull()),
    'parent_id',
    'organizations',
    'restrict',
  ).execute();
  await tenantKey(db, 'organizations');

  await tenantTable(db, 'asset_classes')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await tenantKey(db, 'asset_classes');

  await childOf(
    tenantTable(db, 'locations')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('parent_id', 'integer')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull()),
    'parent_id',
    'locations',
    'restrict',
  ).execute();
  await tenantKey(db, 'locations');

  let assets = tenantTable(db, 'assets')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('serial_number', 'text')
    .addColumn('location_id', 'integer')
    .addColumn('asset_class_id', 'integer')
    // the spatial origin of 3D content placed on this asset
    .addColumn('anchor_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull());
  assets = childOf(assets, 'location_id', 'locations', 'restrict');
  assets = childOf(assets, 'asset_class_id', 'asset_classes', 'restrict');
  await assets.execute();
  await tenantKey(db, 'assets');

  let templates = tenantTable(db, 'templates')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('asset_class_id', 'integer')
    .addColumn('owner_id', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull());
  templates = childOf(templates, 'asset_class_id', 'asset_classes', 'restrict');
  await templates.execute();
  await tenantKey(db, 'templates');

  await childOf(
    childOf(
      db.schema
        .createTable('template_organizations')
        .addColumn('client_id', 'integer', (c) => c.notNull())
        .addColumn('template_id', 'integer', (c) => c.notNull())
        .addColumn('organization_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('template_organizations_pk', ['client_id', 'template_id', 'organization_id']) as Builder,
      'template_id',
      'templates',
    ),
    'organization_id',
    'organizations',
  ).execute();

  await childOf(
    tenantTable(db, 'template_versions')
      .addColumn('template_id', 'integer', (c) => c.notNull())
      .addColumn('number', 'integer', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      // canonical JSON of sections → steps → fields, and its SHA-256 (what signatures sign)
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('content_hash', 'text', (c) => c.notNull())
      .addColumn('created_by', 'integer', (c) => c.notNull())
      // the last user who edited the content: separation of duties looks at both
      .addColumn('updated_by', 'integer', (c) => c.notNull())
      .addColumn('reject_reason', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('submitted_at', 'text')
      .addColumn('approved_at', 'text')
      .addColumn('published_at', 'text')
      .addColumn('retired_at', 'text')
      .addUniqueConstraint('template_versions_number', ['client_id', 'template_id', 'number']),
    'template_id',
    'templates',
  ).execute();
  await tenantKey(db, 'template_versions');
  // at most one DRAFT and one PUBLISHED version per template, enforced by the database
  for (const state of ['DRAFT', 'PUBLISHED']) {
    await db.schema
      .createIndex(`template_versions_one_${state.toLowerCase()}`)
      .on('template_versions')
      .columns(['client_id', 'template_id'])
      .unique()
      .where(sql.ref('state'), '=', state)
      .execute();
  }

  await childOf(
    tenantTable(db, 'version_signatures')
      .addColumn('version_id', 'integer', (c) => c.notNull())
      .addColumn('signer_id', 'integer', (c) => c.notNull())
      // copied at signing time: the record stays readable when the account changes or goes
      .addColumn('signer_name', 'text', (c) => c.notNull())
      .addColumn('signer_email', 'text', (c) => c.notNull())
      .addColumn('meaning', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('content_hash', 'text', (c) => c.notNull())
      .addColumn('signed_at', 'text', (c) => c.notNull()),
    'version_id',
    'template_versions',
  ).execute();
  await db.schema.createIndex('version_signatures_version').on('version_signatures').columns(['client_id', 'version_id']).execute();

  let jobs = tenantTable(db, 'jobs')
    .addColumn('template_id', 'integer', (c) => c.notNull())
    .addColumn('version_id', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('asset_id', 'integer')
    .addColumn('priority', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    // incremented by every write; a stale expectedRevision is a CONFLICT
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('due_at', 'text')
    .addColumn('cancel_reason', 'text')
    .addColumn('created_by', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text');
  jobs = childOf(jobs, 'template_id', 'templates', 'restrict');
  jobs = childOf(jobs, 'version_id', 'template_versions', 'restrict');
  jobs = childOf(jobs, 'asset_id', 'assets', 'restrict');
  await jobs.execute();
  await tenantKey(db, 'jobs');
  await db.schema.createIndex('jobs_version').on('jobs').columns(['client_id', 'version_id', 'state']).execute();
  await db.schema.createIndex('jobs_template').on('jobs').columns(['client_id', 'template_id']).execute();

  // assignees (kind ASSIGNEE), co-workers who joined (COWORKER) and step owners of team jobs (STEP_OWNER with step_id)
  await childOf(
    childOf(
      tenantTable(db, 'job_members')
        .addColumn('job_id', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('step_id', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('job_members_unique', ['client_id', 'job_id', 'kind', 'user_id', 'step_id']),
      'job_id',
      'jobs',
    ),
    'user_id',
    'users',
  ).execute();
  await db.schema.createIndex('job_members_user').on('job_members').columns(['client_id', 'user_id', 'kind']).execute();

  await childOf(
    tenantTable(db, 'step_records')
      .addColumn('job_id', 'integer', (c) => c.notNull())
      .addColumn('step_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      // JSON array of {key, value, outOfLimits}
      .addColumn('values', 'text', (c) => c.notNull())
      .addColumn('comment', 'text')
      .addColumn('reason', 'text')
      .addColumn('recorded_by', 'integer', (c) => c.notNull())
      .addColumn('recorded_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('step_records_step', ['client_id', 'job_id', 'step_id']),
    'job_id',
    'jobs',
  ).execute();

  let faults = tenantTable(db, 'faults')
    .addColumn('job_id', 'integer')
    .addColumn('step_id', 'text')
    .addColumn('asset_id', 'integer')
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('photos', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('raised_by', 'integer', (c) => c.notNull())
    .addColumn('raised_at', 'text', (c) => c.notNull())
    .addColumn('closed_by', 'integer')
    .addColumn('closed_at', 'text')
    .addColumn('close_note', 'text');
  faults = childOf(faults, 'job_id', 'jobs');
  faults = childOf(faults, 'asset_id', 'assets', 'restrict');
  await faults.execute();
  await db.schema.createIndex('faults_job').on('faults').columns(['client_id', 'job_id']).execute();
  await db.schema.createIndex('faults_asset').on('faults').columns(['client_id', 'asset_id']).execute();

  await childOf(
    childOf(
      childOf(
        tenantTable(db, 'hand_offs')
          .addColumn('job_id', 'integer', (c) => c.notNull())
          .addColumn('from_user_id', 'integer', (c) => c.notNull())
          .addColumn('to_user_id', 'integer', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('note', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('decided_at', 'text'),
        'job_id',
        'jobs',
      ),
      'from_user_id',
      'users',
    ),
    'to_user_id',
    'users',
  ).execute();
  await db.schema.createIndex('hand_offs_from').on('hand_offs').columns(['client_id', 'from_user_id']).execute();
  await db.schema.createIndex('hand_offs_to').on('hand_offs').columns(['client_id', 'to_user_id']).execute();
  // one pending hand-off per job at a time
  await db.schema
    .createIndex('hand_offs_one_pending')
    .on('hand_offs')
    .columns(['client_id', 'job_id'])
    .unique()
    .where(sql.ref('status'), '=', 'PENDING')
    .execute();

  await tenantTable(db, 'sensors')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('unit', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await tenantKey(db, 'sensors');

  await childOf(
    tenantTable(db, 'sensor_readings')
      .addColumn('sensor_id', 'integer', (c) => c.notNull())
      // the sender's id for the reading: a resent reading is a duplicate, not a second value
      .addColumn('reading_id', 'text', (c) => c.notNull())
      .addColumn('value', 'real', (c) => c.notNull())
      .addColumn('measured_at', 'text', (c) => c.notNull())
      .addColumn('received_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('sensor_readings_reading', ['client_id', 'reading_id']),
    'sensor_id',
    'sensors',
  ).execute();
  await db.schema.createIndex('sensor_readings_latest').on('sensor_readings').columns(['client_id', 'sensor_id', 'measured_at']).execute();

  await tenantTable(db, 'editorial_events')
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('template_id', 'integer', (c) => c.notNull())
    .addColumn('version_id', 'integer')
    .addColumn('step_id', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('editorial_events_template').on('editorial_events').columns(['client_id', 'template_id', 'at']).execute();

  await childOf(
    db.schema
      .createTable('tutorial_completions')
      .addColumn('client_id', 'integer', (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('tutorial_id', 'text', (c) => c.notNull())
      .addColumn('completed_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('tutorial_completions_pk', ['client_id', 'user_id', 'tutorial_id']) as Builder,
    'user_id',
    'users',
  ).execute();

  // The audit trail: append-only, one hash chain per client. audit_heads holds
  // each chain's end, updated in the same transaction as the entry it links
  // (a row lock in PostgreSQL, the write lock in SQLite), so concurrent writers
  // of one client serialise while clients never share a lock.
  await tenantTable(db, 'audit_entries')
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('actor_user_id', 'integer')
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('entity_type', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addUniqueConstraint('audit_entries_seq', ['client_id', 'seq'])
    .execute();
  await db.schema.createIndex('audit_entries_entity').on('audit_entries').columns(['client_id', 'entity_type', 'entity_id']).execute();
  await db.schema
    .createTable('audit_heads')
    .addColumn('client_id', 'integer', (c) => c.primaryKey().references('clients.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();

  // separation of duties may be relaxed per client (off by default)
  await db.schema
    .alterTable('client_settings')
    .addColumn('allow_self_approval', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('client_settings').dropColumn('allow_self_approval').execute();
  for (const table of [
    'audit_heads',
    'audit_entries',
    'tutorial_completions',
    'editorial_events',
    'sensor_readings',
    'sensors',
    'hand_offs',
    'faults',
    'step_records',
    'job_members',
    'jobs',
    'version_signatures',
    'template_versions',
    'template_organizations',
    'templates',
    'assets',
    'locations',
    'asset_classes',
    'organizations',
  ]) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.dropIndex('users_tenant_key').execute();
}

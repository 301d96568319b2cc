import type { Kysely } from 'kysely';

// Qualifications (docs/qualifications.md): a client's skills, the
// skills its users hold (with a level, an optional expiry and an optional
// trainer's e-signature), the overrides that let someone work on a job without
// a required skill, and the retraining a publish makes due. Tenant tables; a
// child references its parent through (client_id, parent_id) like every
// domain table (migration 0005), so a link across clients is impossible.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('skills')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    // 1: held or not; up to 4: levels 1..levels
    .addColumn('levels', 'integer', (c) => c.notNull())
    .addColumn('validity_days', 'integer')
    .addColumn('created_by', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('skills_name', ['client_id', 'name'])
    .execute();
  await db.schema.createIndex('skills_tenant_key').on('skills').columns(['client_id', 'id']).unique().execute();

  // one row per user and skill: granting again replaces level and expiry; revoking deletes the row (the audit keeps the history)
  await db.schema
    .createTable('user_skills')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('skill_id', 'integer', (c) => c.notNull())
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('granted_by', 'integer', (c) => c.notNull())
    .addColumn('granted_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    // the trainer's e-signature (meaning TRAINED), when given
    .addColumn('trainer_id', 'integer')
    .addColumn('trainer_name', 'text')
    .addColumn('trainer_method', 'text')
    .addColumn('trained_at', 'text')
    // the daily expiry notice went out for this grant (granting again clears it)
    .addColumn('expiry_notified_at', 'text')
    .addUniqueConstraint('user_skills_unique', ['client_id', 'user_id', 'skill_id'])
    .addForeignKeyConstraint('user_skills_user_fk', ['client_id', 'user_id'], 'users', ['client_id', 'id'], (c) => c.onDelete('cascade'))
    .addForeignKeyConstraint('user_skills_skill_fk', ['client_id', 'skill_id'], 'skills', ['client_id', 'id'], (c) => c.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('user_skills_skill').on('user_skills').columns(['client_id', 'skill_id']).execute();
  await db.schema.createIndex('user_skills_expiry').on('user_skills').columns(['expires_at']).execute();

  // job_id null: the override covers creating and assigning jobs of that version (the job does not exist yet)
  await db.schema
    .createTable('qualification_overrides')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('template_id', 'integer', (c) => c.notNull())
    .addColumn('version_id', 'integer', (c) => c.notNull())
    .addColumn('job_id', 'integer')
    .addColumn('reason', 'text', (c) => c.notNull())
    // what the user lacked when the override was set (JSON), for the deviation and the audit
    .addColumn('lacking', 'text', (c) => c.notNull())
    .addColumn('overridden_by', 'integer', (c) => c.notNull())
    .addColumn('overridden_by_name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint('qualification_overrides_user_fk', ['client_id', 'user_id'], 'users', ['client_id', 'id'], (c) =>
      c.onDelete('cascade'),
    )
    .addForeignKeyConstraint(
      'qualification_overrides_version_fk',
      ['client_id', 'version_id'],
      'template_versions',
      ['client_id', 'id'],
      (c) => c.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('qualification_overrides_user')
    .on('qualification_overrides')
    .columns(['client_id', 'user_id', 'version_id'])
    .execute();

  // a publish whose steps changed: the users qualified on the template read the diff and acknowledge it
  await db.schema
    .createTable('retrainings')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('template_id', 'integer', (c) => c.notNull())
    .addColumn('version_id', 'integer', (c) => c.notNull())
    .addColumn('previous_version_id', 'integer', (c) => c.notNull())
    .addColumn('due_since', 'text', (c) => c.notNull())
    .addColumn('acknowledged_at', 'text')
    .addUniqueConstraint('retrainings_unique', ['client_id', 'user_id', 'version_id'])
    .addForeignKeyConstraint('retrainings_user_fk', ['client_id', 'user_id'], 'users', ['client_id', 'id'], (c) => c.onDelete('cascade'))
    .addForeignKeyConstraint('retrainings_version_fk', ['client_id', 'version_id'], 'template_versions', ['client_id', 'id'], (c) =>
      c.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('retrainings_template').on('retrainings').columns(['client_id', 'user_id', 'template_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['retrainings', 'qualification_overrides', 'user_skills', 'skills']) await db.schema.dropTable(table).execute();
}

import type { SchemaModule } from '../module';
import { meModule } from './me';
import { catalogueModule } from './catalogue';
import { templatesModule } from './templates';
import { jobsModule } from './jobs';
import { rulesModule } from './rules';
import { deviationsModule } from './deviations';
import { handOffsModule } from './hand-offs';
import { tutorialsModule } from './tutorials';
import { filesModule } from './files';
import { nodeModule } from './node';
import { notificationsModule } from './notifications';
import { reviewsModule } from './reviews';
import { recordsModule } from './records';
import { skillsModule } from './skills';
import { schedulesModule } from './schedules';
import { translationsModule } from './translations';

/** Every module of the schema; a domain area adds its module here. */
export const modules: SchemaModule[] = [
  meModule,
  catalogueModule,
  templatesModule,
  jobsModule,
  rulesModule,
  deviationsModule,
  handOffsModule,
  tutorialsModule,
  filesModule,
  notificationsModule,
  reviewsModule,
  recordsModule,
  skillsModule,
  schedulesModule,
  translationsModule,
  nodeModule,
];

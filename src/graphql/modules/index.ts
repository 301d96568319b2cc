import type { SchemaModule } from '../schema';
import { meModule } from './me';

/** Every module of the schema; a domain area adds its module here. */
export const modules: SchemaModule[] = [meModule];

/** Connect's Filter: drops every record it is applied to; used with a predicate to drop some. */
import { ConfigDef } from '../config-def.js';
import type { Transformation } from './transformation.js';

export const FILTER_DEF = new ConfigDef();

export class Filter implements Transformation {
  configure(): void {}

  apply(): null {
    return null;
  }
}

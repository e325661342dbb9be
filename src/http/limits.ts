import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Config } from '../config.js';
import { nodeLimit } from './node-limit.js';

// A refused operation is the caller's to fix: it carries a code like every other expected error.
const onReject = [(_context: unknown, error: GraphQLError) => Object.assign(error.extensions, { code: 'OPERATION_TOO_COMPLEX' })];

/** Bounds on one operation, checked during validation (and, for the row count, with the variables), before anything runs. */
export function operationLimits(config: Pick<Config, 'maxDepth' | 'maxAliases' | 'maxCost' | 'maxNodes'>): Plugin[] {
  return [
    maxDepthPlugin({ n: config.maxDepth, exposeLimits: true, flattenFragments: true, onReject }),
    maxAliasesPlugin({ n: config.maxAliases, exposeLimits: true, onReject }),
    costLimitPlugin({ maxCost: config.maxCost, exposeLimits: true, onReject }),
    nodeLimit(config.maxNodes),
  ] as Plugin[];
}

import type { ModelName } from '../auth/tenancy.js';

/** The calls generic code makes on any model's Prisma delegate. */
export interface Delegate {
  findMany(args: object): Promise<unknown[]>;
  findFirst(args: object): Promise<unknown>;
  findUnique(args: object): Promise<unknown>;
  count(args: object): Promise<number>;
  create(args: object): Promise<{ id: number }>;
  update(args: object): Promise<{ id: number }>;
  delete(args: object): Promise<{ id: number }>;
}

/** `prisma.whiteboard` for 'Whiteboard', on a client or a transaction. */
export function delegateOf(client: object, model: ModelName): Delegate {
  return (client as Record<string, Delegate>)[model[0].toLowerCase() + model.slice(1)];
}

import type { GraphQLResponse } from './graphql.js';

/** Whatever sends a GraphQL operation as the demo owner: a test server, a gateway process. */
type Sender = { graphql(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse> };

const read = `query($rowId: Int!) { whiteboard(rowId: $rowId) { description version } }`;
const write = `mutation($input: UpdateWhiteboardInput!) { updateWhiteboard(input: $input) { whiteboard { description version } } }`;

/**
 * The lost-update proof of issue 41: `writers` clients at once each add 1, `increments` times, to a
 * number kept in one board's description, by reading it and writing it back. With versions each
 * write expects the version it read and, refused with CONFLICT, starts again from the current row the
 * refusal carries, after a random backoff; without, the later write of two that read the same value silently wins.
 * Answers the final value and how many writes were refused.
 */
export async function countConcurrently(
  server: Sender,
  boardId: number,
  { writers, increments, versioned }: { writers: number; increments: number; versioned: boolean },
): Promise<{ value: number; conflicts: number }> {
  let conflicts = 0;
  const writer = async () => {
    for (let i = 0; i < increments; i++) {
      let seen = (await server.graphql(read, { rowId: boardId })).data!.whiteboard;
      let refusals = 0;
      for (;;) {
        const input = {
          rowId: boardId,
          description: String(Number(seen.description) + 1),
          ...(versioned && { expectedVersion: seen.version }),
        };
        const answer = await server.graphql(write, { input });
        const error = answer.errors?.[0];
        if (!error) break;
        if (error.extensions?.code !== 'CONFLICT') throw new Error(JSON.stringify(error));
        conflicts++;
        seen = error.extensions.current as { description: string; version: number };
        // As a client should: a random wait, longer after each refusal, so that the writers of one row stop colliding in step.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** Math.min(++refusals, 8)));
      }
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
  const final = (await server.graphql(read, { rowId: boardId })).data!.whiteboard;
  return { value: Number(final.description), conflicts };
}

import { GraphQLError } from 'graphql';
import { Hono } from 'hono';
import { registerWithInvite } from '../schema/invites.js';
import { storableProblem } from '../schema/storable.js';
import { item, type ValidationItem } from './coerce.js';
import { invalid, tooManyRequests } from './errors.js';
import { snakeCase } from './names.js';
import { addressOf, type RateLimits } from '../http/rate-limit/index.js';
import { incomingOf, write } from './router.js';

/** Where a newcomer registers (the legacy RegisterUserInviteSchema): the one route without a key, since the invite token is the credential. */
export const registerPath = '/api/users/invite/v1/register/';

const fields = { token: true, first_name: true, last_name: false } as const;

/** With a rate limit, every call is charged a point to its address (it has no key). */
export function registerRoute(rateLimits?: RateLimits): Hono {
  return new Hono().post(registerPath, async (c) => {
    const decision = await rateLimits?.chargeAddress(c.req.raw, addressOf(incomingOf(c)));
    if (decision && !decision.admitted) return write(c, tooManyRequests(decision, 1), rateLimits);
    const body: unknown = await c.req.json().catch(() => undefined);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return c.json(invalid([item('model_attributes_type', ['body'], body ?? null)]).body, 422);
    const values = body as Record<string, unknown>;
    const problems: ValidationItem[] = [];
    for (const [name, required] of Object.entries(fields)) {
      const value = values[name];
      if (value === undefined || value === null) {
        if (required) problems.push(item('missing', ['body', name], values));
      } else if (typeof value !== 'string') {
        problems.push(item('string_type', ['body', name], value));
      } else {
        // This route calls no GraphQL operation, so its strings meet the argument check here.
        const problem = storableProblem(value, name);
        if (problem) problems.push({ type: 'value_error', loc: ['body', name], msg: `Value error, ${name} ${problem.message}`, input: value });
      }
    }
    if (problems.length) return c.json(invalid(problems).body, 422);
    try {
      const registered = await registerWithInvite({
        token: values.token as string,
        firstName: values.first_name as string,
        lastName: (values.last_name as string | undefined) ?? null,
      });
      return c.json({ user_id: registered.userId, membership_id: registered.membershipId, api_key: registered.apiKeySecret }, 201);
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      if (error.extensions.code === 'CONFLICT') return c.json({ detail: error.message }, 409);
      const field = String(error.extensions.field ?? 'input.token').replace(/^input\./, '');
      const loc = ['body', snakeCase(field)];
      return c.json(invalid([{ type: 'value_error', loc, msg: `Value error, ${error.message}`, input: values[snakeCase(field)] ?? null }]).body, 422);
    }
  });
}

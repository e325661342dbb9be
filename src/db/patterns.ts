// Prisma sends `contains`, `startsWith` and a case-insensitive `equals` as LIKE patterns (ILIKE)
// without escaping them: `%`, `_` and `\` in a caller's text would act as wildcards and escapes
// ("50%" would match "5", `o_ivia@...` someone else's address).

/** A text matched literally inside a LIKE pattern. */
export const literalPattern = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/** The user whose e-mail is `email`, in any case: e-mail addresses are compared case-insensitively. */
export const ofEmail = (email: string) => ({
  email: { equals: literalPattern(email), mode: 'insensitive' as const },
});

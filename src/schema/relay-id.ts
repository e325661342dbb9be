import { encodeGlobalID } from '@pothos/plugin-relay';

// Apart from global-id.ts (its reading and the node fields), which imports the request context: the
// webhooks' payloads name rows by global id too, and the context imports the webhooks.

/** A row's global id as Pothos writes the id fields: Relay's default, base64 of "Type:rowId". */
export const encodeGlobalId = (typename: string, rowId: number | string): string => encodeGlobalID(typename, rowId);

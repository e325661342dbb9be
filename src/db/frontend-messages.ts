// Splits the bytes a PostgreSQL client sends into whole protocol messages
// (https://www.postgresql.org/docs/current/protocol-message-formats.html).

/**
 * `encryption`: an SSL or GSS encryption request, to be declined with 'N'; `cancel`: a cancel
 * request (a connection of its own, no answer); `terminate`: the client is leaving; `backend`:
 * a message for the database, the startup message included.
 */
export type FrontendMessage = { type: 'encryption' | 'cancel' | 'terminate' } | { type: 'backend'; bytes: Buffer };

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_MAJOR_3 = 3;
const TERMINATE = 'X'.charCodeAt(0);

export class FrontendMessageReader {
  #pending = Buffer.alloc(0);
  /** Before the startup message, messages carry no type byte. */
  #started = false;

  /** Adds received bytes; returns the messages they complete. Throws on bytes that are not the protocol. */
  read(chunk: Buffer): FrontendMessage[] {
    this.#pending = Buffer.concat([this.#pending, chunk]);
    const messages: FrontendMessage[] = [];
    for (let message = this.#next(); message; message = this.#next()) messages.push(message);
    return messages;
  }

  #next(): FrontendMessage | undefined {
    const typeBytes = this.#started ? 1 : 0;
    if (this.#pending.length < typeBytes + 4) return undefined;
    const length = this.#pending.readInt32BE(typeBytes);
    if (length < 4) throw new Error('malformed message length');
    if (this.#pending.length < typeBytes + length) return undefined;
    const bytes = this.#pending.subarray(0, typeBytes + length);
    this.#pending = this.#pending.subarray(bytes.length);
    if (this.#started) return bytes[0] === TERMINATE ? { type: 'terminate' } : { type: 'backend', bytes };

    const code = length >= 8 ? bytes.readInt32BE(4) : 0;
    if (code === SSL_REQUEST || code === GSS_REQUEST) return { type: 'encryption' };
    if (code === CANCEL_REQUEST) return { type: 'cancel' };
    if (code >>> 16 !== PROTOCOL_MAJOR_3) throw new Error(`unsupported protocol version ${code >>> 16}`);
    this.#started = true;
    return { type: 'backend', bytes };
  }
}

import type { KeyRing } from './keys.js';
import type { HttpRequest } from './requests.js';

/** One request case of the bench: what it sends to the gateway, and the same question to the others. */
export interface Case {
  id: string;
  title: string;
  kind: 'GraphQL' | 'REST' | 'mutation';
  /** Least gateway/peer ratio of requests per second asked for (issue 20: 1.0 for reads, 0.8 for a rename). */
  peerTarget?: number;
  /** Least gateway/floor ratio of requests per second asked for (issue 20: 0.9 for reads). */
  floorTarget?: number;
  /** Most statements a request may cost (issue 20: a write in at most 4, its transaction included). */
  statementTarget?: number;
  /** Leaf paths of the answers that the check against the peer leaves out: values only one side sets. */
  ignore?: RegExp;
  /** Request number i to the gateway; requests vary with i (another board, another key). */
  gateway(i: number): HttpRequest;
  /** Reads what the gateway's requests depend on (the rows' versions), before the check and each gateway run. */
  prepare?(): Promise<void>;
  /** True when every request is the same, so the load generator builds it once. */
  constant: boolean;
  /** Requests n..n+run-1 go over one connection in order (an archive and its unarchive). @default 1 */
  run?: number;
  /** Request number i's equivalent on the floor server; read cases only. */
  floor?(i: number): HttpRequest;
  /** Request number i's equivalent on the peer (PostGraphile); cases it can answer. */
  peer?(i: number): HttpRequest;
  /** Why the case cannot run against this gateway (a route or mutation that does not exist yet). */
  skip?: string;
  notes: string[];
}

/** What a case needs to build its requests. */
export interface CaseContext {
  gatewayUrl: string;
  /** The peer's address, when it runs: cases that need its own ids or cursors ask it. */
  peerUrl?: string;
  keys: KeyRing;
  /** The organization of key 0, and its boards in row order. */
  org: number;
  boards: number[];
}

import type { YogaInitialContext } from 'graphql-yoga';
import { initContextCache } from '@pothos/core';

/** Made per request; loaders and the caller's identity (once authentication lands) live here. */
export interface Context {
  request: Request;
}

export function createContext(initial: YogaInitialContext): Context {
  return { ...initContextCache(), request: initial.request };
}

import { afterAll } from 'vitest';
import { removeScratchDirectories } from './helpers/scratch.js';

// Registered before any hook of the file, so it runs after all of them (Vitest runs after-hooks in reverse).
afterAll(removeScratchDirectories);

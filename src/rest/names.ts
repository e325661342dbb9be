/** `miniDrawingId` -> `mini_drawing_id`, `cameraX1` -> `camera_x1`: GraphQL names as the legacy spells them. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** Sets `value` at a dotted variable path (`input.rowId`), making the objects on the way. */
export function setAt(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[path[path.length - 1]] = value;
}

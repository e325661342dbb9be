/** `miniDrawingId` -> `mini_drawing_id`, `cameraX1` -> `camera_x1`: GraphQL names as the legacy spells them. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

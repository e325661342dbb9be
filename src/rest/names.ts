import { upperFirst } from '../schema/case.js';

/** `miniDrawingId` -> `mini_drawing_id`, `cameraX1` -> `camera_x1`: GraphQL names as the legacy spells them. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

const words = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());

/** `user-organization` -> `UserOrganization`, `{whiteboard_id}` -> `WhiteboardId`, `Get User` -> `GetUser`. */
export const pascalCase = (text: string) => words(text).map(upperFirst).join('');

/** `List User Organizations` -> `listUserOrganizations`. */
export const camelCase = (text: string) =>
  words(text)
    .map((word, index) => (index ? upperFirst(word) : word))
    .join('');

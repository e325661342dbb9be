/** `Whiteboard` -> `whiteboard`: a type's name as its fields and operations spell it. */
export const lowerFirst = (name: string) => name[0].toLowerCase() + name.slice(1);

/** `whiteboard` -> `Whiteboard`: a word as the start of a type's or an input's name. */
export const upperFirst = (name: string) => name[0].toUpperCase() + name.slice(1);

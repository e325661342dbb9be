import type { BoardsQuery } from './generated/graphql/graphql.js';

type Board = BoardsQuery['whiteboards']['edges'][number]['node'];

/** An element with attributes and children; text always goes in as text, never as markup. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`index.html has no #${id}`);
  return element as T;
}

function stream(node: Board['dataStreams']['edges'][number]['node']): HTMLLIElement {
  const swatch = el('span', { class: 'swatch' });
  swatch.style.background = node.color;
  const slides = node.slides.edges.map(({ node: slide }) => el('li', {}, slide.name));
  return el('li', { class: 'stream' }, swatch, node.name, el('ol', { class: 'slides' }, ...slides));
}

/** A board with its streams and their slides, and a form that renames it. */
export function board(node: Board, rename: (rowId: number, name: string) => void): HTMLLIElement {
  const input = el('input', { name: 'name', required: '', 'aria-label': `New name of ${node.name}` });
  const form = el('form', { class: 'rename' }, input, el('button', { type: 'submit' }, 'Rename'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    rename(node.rowId, input.value);
    form.reset();
  });
  const streams = node.dataStreams.edges.map((edge) => stream(edge.node));
  return el(
    'li',
    { class: 'board', 'data-row-id': String(node.rowId) },
    el('h3', { class: 'board-name' }, node.name),
    form,
    el('ul', { class: 'streams' }, ...streams),
  );
}

/** Shows a board's new name wherever the page lists it. */
export function showName(rowId: number, name: string): void {
  for (const heading of document.querySelectorAll(`[data-row-id="${rowId}"] .board-name`)) heading.textContent = name;
}

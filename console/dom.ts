/** Element building for the page. Text from the daemon only ever goes in as text, never markup. */

export type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Readonly<Record<string, string>> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  for (const child of children)
    if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

/** Sets text only when it changed: the page redraws each second, and a selection should stay. */
export function setText(node: Element, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

/** Sets an attribute only when it changed (data-tone drives colours in app.css). */
export function setAttr(node: Element, name: string, value: string | undefined): void {
  if (value === undefined) node.removeAttribute(name);
  else if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/** Replaces a container's children only when what they show changed (`key` says what). */
export function replaceIfChanged(node: HTMLElement, key: string, build: () => Child[]): void {
  if (node.dataset.key === key) return;
  node.dataset.key = key;
  node.replaceChildren(
    ...build().filter((c): c is Node | string => c !== null && c !== undefined && c !== false),
  );
}

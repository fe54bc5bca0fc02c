/**
 * What the page keeps for the tab: the bearer token and the operator's name, in sessionStorage
 * (gone when the tab closes, never in a URL). Where storage is refused (some private modes) they
 * live in memory until the page reloads.
 */

const TOKEN = 'makerd.console.token';
const OPERATOR = 'makerd.console.operator';
const memory = new Map<string, string>();

function read(key: string): string | undefined {
  try {
    return sessionStorage.getItem(key) ?? undefined;
  } catch {
    return memory.get(key);
  }
}

function write(key: string, value: string | undefined): void {
  try {
    if (value === undefined) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch {
    if (value === undefined) memory.delete(key);
    else memory.set(key, value);
  }
}

export const storedToken = (): string | undefined => read(TOKEN);
export const storeToken = (token: string | undefined): void => write(TOKEN, token);
export const storedOperator = (): string => read(OPERATOR) ?? '';
export const storeOperator = (name: string): void => write(OPERATOR, name);

import { applyStatePatch } from '../../src/console/state-patch.js';

/**
 * The console's Server-Sent Events as the page reads them: each event's name, and the state the
 * page holds after it (the first `state` whole, then each `patch` applied; undefined before the
 * first state).
 */
export async function* pageEvents(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<{ readonly name: string; readonly state: unknown }> {
  const decoder = new TextDecoder();
  let buffered = '';
  let state: unknown;
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const name = /^event: (\w+)/.exec(event)?.[1] ?? '';
      const data = JSON.parse(event.slice(event.indexOf('data: ') + 6)) as unknown;
      if (name === 'state') state = data;
      else if (name === 'patch' && state !== undefined) state = applyStatePatch(state, data);
      yield { name, state };
    }
  }
}

import { printableJson } from '../core/index.js';
import { SpotClient } from '../exchange/index.js';

/** `makerd time` and `makerd system-status`: one public call, printed as a JSON line. */
export async function printExchangeInfo(
  baseUrl: string,
  call: 'time' | 'systemStatus',
): Promise<void> {
  const client = new SpotClient({ baseUrl });
  try {
    const { result, traceId } = await client[call]();
    process.stdout.write(`${printableJson({ ...result, traceId })}\n`);
  } finally {
    await client.close();
  }
}

import { channel } from 'node:diagnostics_channel';

/**
 * Diagnostics without a logger dependency (as undici does): metrics and tests subscribe. Messages
 * carry the endpoint name, nonce, status and trace id: never keys, signatures or bodies.
 */
export const signedChannel = channel('makerd:exchange:signed');
export const responseChannel = channel('makerd:exchange:response');

export interface SignedMessage {
  readonly endpoint: string;
  readonly family: string;
  readonly nonce: string;
}

export interface ResponseMessage {
  readonly endpoint: string;
  readonly family: string;
  readonly durationMs: number;
  readonly traceId: string | undefined;
  /** The error's stable code when the call failed. */
  readonly errorCode: string | undefined;
}

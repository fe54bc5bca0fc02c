export { SpotClient, type SpotClientOptions } from './client/spot-client.js';
export type { ApiResponse, CallOptions, RetryPolicy } from './client/call-pipeline.js';
export {
  signedChannel,
  responseChannel,
  type SignedMessage,
  type ResponseMessage,
} from './client/diagnostics.js';
export * as endpoints from './endpoints/index.js';
export type {
  AssetPair,
  Asset,
  BookLevel,
  DepthBook,
  Level3Entry,
  Level3Result,
  Order,
  OrderFields,
  AddOrderRequest,
  AddOrderBatchRequest,
  EditOrderRequest,
  Side,
  OrderType,
  SystemMode,
  SystemStatusResult,
  MaintenanceEvent,
  EmergencyEvent,
  Endpoint,
} from './endpoints/index.js';
export * from './errors/index.js';
export * from './limits/index.js';
export * from './nonce/index.js';
export * from './pair-rules.js';
export { Credentials, maskKey, type CredentialsInput } from './signing/credentials.js';
export {
  spotSigner,
  futuresSigner,
  custodySigner,
  type RequestSigner,
  type SigningInput,
} from './signing/signers.js';
export { HttpTransport } from './transport/http-transport.js';
export {
  DEFAULT_USER_AGENT,
  type HttpRequest,
  type HttpResponse,
  type Transport,
  type TransportOptions,
} from './transport/types.js';

// The ES module entry point: a wrapper over the CommonJS build, so that
// `import` and `require` share one module instance (one native addon, one
// McpError class for instanceof checks).
import polymcp from "../dist/index.js";

export const {
  Client,
  ConnectionClosedError,
  DEFAULT_MAX_BODY_BYTES,
  ErrorCode,
  INPUT_METHODS,
  LOGGING_LEVELS,
  MAX_COMPLETION_VALUES,
  McpError,
  McpServer,
  NativeError,
  OutputSchemaError,
  RequestTimeoutError,
  ResourceTemplate,
  Server,
  Subscription,
  ValidationError,
  configure,
  version,
} = polymcp;

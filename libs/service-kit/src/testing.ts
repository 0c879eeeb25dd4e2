// Test support: the sealer's keys for specs (never imported by production code: lint refuses /testing entry points there).
export { testArgumentSealer, testEncryptionKeys } from './secrets/test-encryption-keys';
export {
  type IssuedToken,
  type TestAuthorizationServer,
  type TestOAuthClient,
  type TestOAuthCodeClient,
  startTestAuthorizationServer,
} from './testing/oauth-authorization-server';

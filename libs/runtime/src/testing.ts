// The sealer's test keys stay beside the sealer; the gateway harness moved to @onceport/gateway-harness.
export { testArgumentSealer, testEncryptionKeys } from './testing/test-encryption-keys';

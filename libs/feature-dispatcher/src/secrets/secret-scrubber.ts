// The scrubber lives in the service kit (the logger uses it); the dispatcher's files import it from here.
export { SecretScrubber } from '@onceport/service-kit';

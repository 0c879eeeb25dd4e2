// wired in by the service's issue
export {};

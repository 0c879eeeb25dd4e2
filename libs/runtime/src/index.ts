// Dissolved (issue #13): the ports, bootstrap and migrations are in @onceport/service-kit, the
// result store and the pool in @onceport/event-store. Only the testing entry point is left here.
export {};

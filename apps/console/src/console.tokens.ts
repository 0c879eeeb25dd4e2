/** Where the built front end is read from. */
export const ASSETS_DIR = Symbol('CONSOLE_ASSETS_DIR');

export { type AppProcess, startAppProcess } from './testing/app-process';

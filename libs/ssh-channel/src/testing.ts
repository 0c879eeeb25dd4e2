export { type TestSshd, startTestSshd } from './testing/test-sshd';
export { ensureSshdInstalled, SSHD_PATH } from './testing/install-sshd';
export { type CutProxy, startCutProxy } from './testing/cut-proxy';
export { installRecordRun, runsOf } from './testing/remote-scripts';
export { sshContract, sshToolEntry, type SshContractOptions, type SshEndpoint } from './testing/ssh-contract';
export { newExecutionId } from './testing/execution-ids';
export { type ExecBehaviour, type FakeSshServer, startFakeSshServer } from './testing/fake-ssh-server';

export { type TestSshd, startTestSshd } from './ssh/testing/test-sshd';
export { ensureSshdInstalled, SSHD_PATH } from './ssh/testing/install-sshd';
export { type CutProxy, startCutProxy } from './ssh/testing/cut-proxy';
export { installRecordRun, runsOf } from './ssh/testing/remote-scripts';
export { sshContract, sshToolEntry, type SshContractOptions, type SshEndpoint } from './ssh/testing/ssh-contract';
export { newExecutionId } from './ssh/testing/execution-ids';
export { type ExecBehaviour, type FakeSshServer, startFakeSshServer } from './ssh/testing/fake-ssh-server';

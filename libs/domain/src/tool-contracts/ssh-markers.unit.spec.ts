import { ToolContractError } from './tool-contract-error';
import { issuesOf, contractsYaml, parseOne, sshTool, withField } from '../../test/contract-builders';

describe('SSH targets without the marker protocol (target.markers: false)', () => {
  it('keeps the marker protocol and its probe by default', () => {
    expect(parseOne(sshTool())).toMatchObject({ channel: 'ssh', target: { markers: true }, probe: { kind: 'marker' } });
  });

  it('drops the probe, so an unknown outcome is settled like an irreversible call', () => {
    const contract = parseOne(withField(sshTool(), ['target', 'markers'], false));
    expect(contract).toMatchObject({ channel: 'ssh', effect: 'remote_command', target: { markers: false }, probe: null });
    expect(parseOne(withField(withField(sshTool(), ['target', 'markers'], false), ['effect'], 'irreversible'))).toMatchObject({
      effect: 'irreversible',
      probe: null,
    });
  });

  it('refuses a marker probe on a host that runs no marker wrapper', () => {
    const tool = withField(withField(sshTool(), ['target', 'markers'], false), ['probe'], { kind: 'marker' });
    expect(() => parseOne(tool)).toThrow(ToolContractError);
    expect(() => parseOne(tool)).toThrow(/markers: false/);
  });

  it.each(['none', 'idempotent'])('refuses effect %s without markers: a bare re-send could run the command twice', (effect) => {
    const tool = withField(withField(sshTool(), ['target', 'markers'], false), ['effect'], effect);
    const [issue, ...rest] = issuesOf(contractsYaml(tool), 'contracts/ops.yaml');
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({
      code: 'effect_conflict',
      file: 'contracts/ops.yaml',
      path: 'tools[0].effect',
      found: `effect ${effect} with target.markers: false`,
    });
    expect(issue?.message).toMatch(
      /^contracts\/ops\.yaml: tools\[0\]\.effect: got effect \w+ with target\.markers: false; expected effect remote_command \(or irreversible\).*or drop markers: false/,
    );
  });

  it('gives every effect class a marker probe when markers are on, so an unknown outcome is read from the host', () => {
    for (const effect of ['none', 'idempotent', 'conditional', 'irreversible', 'remote_command']) {
      expect(parseOne(withField(sshTool(), ['effect'], effect))).toMatchObject({ effect, probe: { kind: 'marker' } });
    }
  });

  it('refuses a markers value that is not a boolean', () => {
    expect(() => parseOne(withField(sshTool(), ['target', 'markers'], 'no'))).toThrow(/true \(the default/);
  });
});

describe('SSH credential and marker directory', () => {
  it('requires credential_ref at load, naming the file, the field and the fix', () => {
    const [issue, ...rest] = issuesOf(contractsYaml(withField(sshTool(), ['credential_ref'], undefined)), 'contracts/ops.yaml');
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({
      code: 'invalid_field',
      file: 'contracts/ops.yaml',
      path: 'tools[0].credential_ref',
      found: 'nothing (the field is missing)',
    });
    expect(issue?.expected).toContain('credential_ref: ssh-deploy');
    expect(issue?.expected).toContain('ONCEPORT_CREDENTIAL_SSH_DEPLOY');
  });

  it("defaults the marker directory to one under the login user's home, and accepts ~/ and absolute paths", () => {
    expect(parseOne(sshTool())).toMatchObject({ target: { markerDir: '~/.onceport/markers' } });
    expect(parseOne(withField(sshTool(), ['target', 'marker_dir'], '~/state/markers'))).toMatchObject({
      target: { markerDir: '~/state/markers' },
    });
    expect(parseOne(withField(sshTool(), ['target', 'marker_dir'], '/var/lib/onceport/markers'))).toMatchObject({
      target: { markerDir: '/var/lib/onceport/markers' },
    });
  });

  it.each(['markers', '~root/markers', '~/../etc', '/var/../tmp', '/tmp/$(id)', "~/it's", '/a b'])('refuses marker_dir %s', (dir) => {
    const [issue] = issuesOf(contractsYaml(withField(sshTool(), ['target', 'marker_dir'], dir)));
    expect(issue).toMatchObject({ path: 'tools[0].target.marker_dir', expected: expect.stringContaining('starting with ~/') });
  });
});

import { ToolContractError } from './tool-contract-error';
import { parseOne, sshTool, withField } from '../../test/contract-builders';

describe('SSH targets without the marker protocol (target.markers: false)', () => {
  it('keeps the marker protocol and its probe by default', () => {
    expect(parseOne(sshTool())).toMatchObject({ channel: 'ssh', target: { markers: true }, probe: { kind: 'marker' } });
  });

  it('drops the probe, so an unknown outcome is settled like an irreversible call', () => {
    const contract = parseOne(withField(sshTool(), ['target', 'markers'], false));
    expect(contract).toMatchObject({ channel: 'ssh', effect: 'remote_command', target: { markers: false }, probe: null });
  });

  it('refuses a marker probe on a host that runs no marker wrapper', () => {
    const tool = withField(withField(sshTool(), ['target', 'markers'], false), ['probe'], { kind: 'marker' });
    expect(() => parseOne(tool)).toThrow(ToolContractError);
    expect(() => parseOne(tool)).toThrow(/markers: false/);
  });

  it('refuses a markers value that is not a boolean', () => {
    expect(() => parseOne(withField(sshTool(), ['target', 'markers'], 'no'))).toThrow(/true \(the default/);
  });
});

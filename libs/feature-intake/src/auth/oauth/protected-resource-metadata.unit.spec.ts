import { protectedResourceMetadata, resourceMetadataPaths, resourceMetadataUrl } from './protected-resource-metadata';

describe('protected resource metadata (RFC 9728)', () => {
  it('lives at the well-known segment inserted before the resource path (§3.1), built from the configuration alone', () => {
    expect(resourceMetadataUrl('https://onceport.example/mcp')).toBe('https://onceport.example/.well-known/oauth-protected-resource/mcp');
    expect(resourceMetadataUrl('https://onceport.example:8443/a/mcp')).toBe(
      'https://onceport.example:8443/.well-known/oauth-protected-resource/a/mcp',
    );
    expect(resourceMetadataUrl('https://onceport.example')).toBe('https://onceport.example/.well-known/oauth-protected-resource');
  });

  it('is answered on the derived path and on the bare one MCP clients fall back to', () => {
    expect(resourceMetadataPaths('https://onceport.example/mcp')).toEqual([
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]);
    expect(resourceMetadataPaths('https://onceport.example/')).toEqual(['/.well-known/oauth-protected-resource']);
  });

  it('names the resource, its authorization server, header tokens only, and the required and per-tool scopes', () => {
    const settings = { issuer: 'https://auth.example.com', resource: 'https://onceport.example/mcp', requiredScopes: ['onceport'] };
    expect(protectedResourceMetadata(settings, ['send_email', 'create_deployment'])).toEqual({
      resource: 'https://onceport.example/mcp',
      authorization_servers: ['https://auth.example.com'],
      scopes_supported: ['onceport', 'onceport:tool:create_deployment', 'onceport:tool:send_email'],
      bearer_methods_supported: ['header'],
      resource_name: 'Onceport',
    });
  });
});

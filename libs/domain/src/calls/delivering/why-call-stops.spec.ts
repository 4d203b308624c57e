import { describe, expect, it } from 'vitest';
import { whyCallStops } from './why-call-stops.js';

type Target = Parameters<typeof whyCallStops>[0];
const app = { agentToolsEnabled: true, agentToolsMode: 'constructor' } as NonNullable<Target['app']>;
const instance = { enabled: true, privateDataRequired: true, privateDataEnc: 'enc' } as NonNullable<Target['instance']>;
const live: Target = {
  call: { toolKind: 'http', toolName: 'find', test: false },
  app,
  installationExists: true,
  instance,
  httpToolExists: true,
};

describe('whyCallStops', () => {
  it("lets a developer's test call go on without installation or instance, while its app and tool are there", () => {
    const test: Target = { ...live, call: { ...live.call, test: true }, installationExists: false, instance: null };
    expect(whyCallStops(test)).toBeNull();
    expect(whyCallStops({ ...test, app: { ...app, agentToolsEnabled: false } })).toBeNull();
    expect(whyCallStops({ ...test, httpToolExists: false })).toBe('the tool "find" was deleted');
    expect(whyCallStops({ ...test, app: null })).toBe('the app was deleted');
  });

  it('lets a call whose app, installation, tool and instance are there and on go on', () => {
    expect(whyCallStops(live)).toBeNull();
  });

  it('names the change, the widest first', () => {
    expect(whyCallStops({ ...live, app: null, instance: null })).toBe('the app was deleted');
    expect(whyCallStops({ ...live, app: { ...app, agentToolsEnabled: false } })).toBe(
      "the app's agent tools were switched off",
    );
    expect(whyCallStops({ ...live, app: { ...app, agentToolsMode: 'mcp' } })).toBe(
      "the app's agent tools mode was switched to mcp",
    );
    expect(whyCallStops({ ...live, installationExists: false, instance: null })).toBe(
      'the app was uninstalled from the project',
    );
    expect(whyCallStops({ ...live, httpToolExists: false, instance: null })).toBe('the tool "find" was deleted');
    expect(whyCallStops({ ...live, instance: null })).toBe('the tool instance was deleted');
    expect(whyCallStops({ ...live, instance: { ...instance, enabled: false } })).toBe('the tool instance was disabled');
    expect(whyCallStops({ ...live, instance: { ...instance, privateDataEnc: null } })).toMatch(
      /private data was cleared/,
    );
    expect(
      whyCallStops({ ...live, instance: { ...instance, privateDataRequired: false, privateDataEnc: null } }),
    ).toBeNull();
  });

  it('holds an MCP call to the mcp mode', () => {
    const mcp: Target = {
      ...live,
      call: { toolKind: 'mcp', toolName: 'find', test: false },
      app: { ...app, agentToolsMode: 'mcp' },
      httpToolExists: false,
    };
    expect(whyCallStops(mcp)).toBeNull();
    expect(whyCallStops({ ...mcp, app: app })).toBe("the app's agent tools mode was switched to constructor");
  });
});

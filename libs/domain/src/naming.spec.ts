import { describe, expect, it } from 'vitest';
import {
  AGENT_FACING_NAME,
  agentFacingBaseName,
  appNameProblem,
  parameterNameProblem,
  resolveAgentFacingNames,
  toolNameProblem,
} from './naming.js';

describe('appNameProblem', () => {
  it.each(['crm', 'my-crm', 'a1b', 'shop-2024', 'a'.repeat(24)])('accepts %s', (name) => {
    expect(appNameProblem(name)).toBeNull();
  });

  it.each([
    ['ab', /3–24/],
    ['a'.repeat(25), /3–24/],
    ['1crm', /starting with a letter/],
    ['crm-', /ending with a letter or digit/],
    ['Crm', /lowercase/],
    ['my_crm', /lowercase/],
    ['my--crm', /"--"/],
    ['toolgate', /reserved/],
    ['mcp', /reserved/],
    ['system', /reserved/],
    ['admin', /reserved/],
    ['api', /reserved/],
    ['agent', /reserved/],
  ])('refuses %s', (name, message) => {
    expect(appNameProblem(name)).toMatch(message);
  });
});

describe('toolNameProblem', () => {
  it.each(['a', 'find_customer', 'x1', 'a'.repeat(36)])('accepts %s', (name) => {
    expect(toolNameProblem(name)).toBeNull();
  });

  it.each([
    ['', /1–36/],
    ['a'.repeat(37), /1–36/],
    ['Find', /lowercase/],
    ['1a', /starting/],
    ['find-x', /lowercase/],
    ['a__b', /"__"/],
    ['_a', /starting/],
  ])('refuses %j', (name, message) => {
    expect(toolNameProblem(name)).toMatch(message);
  });
});

describe('parameterNameProblem', () => {
  it.each(['a', 'customerId', '_x', 'A_1', 'a'.repeat(64)])('accepts %s', (name) => {
    expect(parameterNameProblem(name)).toBeNull();
  });
  it.each(['', '1a', 'a-b', 'a b', 'a'.repeat(65)])('refuses %j', (name) => {
    expect(parameterNameProblem(name)).not.toBeNull();
  });
});

describe('agent-facing names', () => {
  it('joins the app name (dashes to underscores) and the tool name', () => {
    expect(agentFacingBaseName('my-crm', 'find_customer')).toBe('my_crm_find_customer');
  });

  it('always fits the model function-name rule, even at the longest names with a suffix', () => {
    const longest = agentFacingBaseName('a'.repeat(24), 'b'.repeat(36));
    const [, second, , , , , , , , tenth] = resolveAgentFacingNames(Array(10).fill(longest));
    expect(second).toMatch(AGENT_FACING_NAME);
    expect(tenth).toBe(`${longest}_10`);
    expect(tenth).toMatch(AGENT_FACING_NAME);
  });

  it('cuts a 64-character base to fit its suffix, and still skips names already taken', () => {
    const base = `${'m'.repeat(10)}_${'t'.repeat(53)}`; // an MCP tool's name may make a base of 64
    const cut = base.slice(0, 62);
    const names = resolveAgentFacingNames([base, `${cut}_2`, base, base]);
    expect(names).toEqual([base, `${cut}_2`, `${cut}_3`, `${cut}_4`]);
    for (const name of names) expect(name).toMatch(AGENT_FACING_NAME);
    expect(resolveAgentFacingNames(Array(12).fill(base))[11]).toBe(`${base.slice(0, 61)}_12`);
  });

  it('lets the earliest keep its name and numbers later ones from _2', () => {
    expect(resolveAgentFacingNames(['a_x', 'b_y', 'a_x', 'a_x'])).toEqual(['a_x', 'b_y', 'a_x_2', 'a_x_3']);
  });

  it('never hands out a name another tool already has', () => {
    // "a_x_2" is a real tool's base name here; the second "a_x" must skip it.
    expect(resolveAgentFacingNames(['a_x', 'a_x_2', 'a_x'])).toEqual(['a_x', 'a_x_2', 'a_x_3']);
  });
});

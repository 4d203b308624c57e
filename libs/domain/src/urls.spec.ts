import { describe, expect, it } from 'vitest';
import { httpUrlProblem } from './urls.js';

describe('httpUrlProblem', () => {
  it.each(['https://example.com/hook', 'http://127.0.0.1:8080/x?y=1', 'https://[::1]/mcp'])('accepts %s', (url) => {
    expect(httpUrlProblem(url)).toBeNull();
  });
  it.each([
    ['example.com/hook', /absolute URL/],
    ['ftp://example.com', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['https://user:pass@example.com', /credentials/],
    ['https://user@example.com', /credentials/],
    ['https://example.com/#x', /fragment/],
  ])('refuses %s', (url, message) => {
    expect(httpUrlProblem(url)).toMatch(message);
  });
});

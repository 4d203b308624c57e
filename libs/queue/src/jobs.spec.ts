import { describe, expect, it } from 'vitest';
import { jobNamesWithoutProcessor } from './jobs.js';

describe('jobNamesWithoutProcessor', () => {
  it('lists the job names nobody processes', () => {
    expect(jobNamesWithoutProcessor(['deliver', 'replay'], ['deliver'])).toEqual(['replay']);
    expect(jobNamesWithoutProcessor(['deliver'], ['deliver', 'other'])).toEqual([]);
  });
});

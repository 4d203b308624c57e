// Preload for `node --import`: adds a job name that no processor handles to the built libs/queue, as a change that
// added a job without its processor would. The worker must refuse to start.
import { JOB_NAMES } from '../../dist/libs/queue/src/jobs.js';

JOB_NAMES.push('replay-tool-call');

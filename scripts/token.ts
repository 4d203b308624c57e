// npm run token -- developer dev_1
// npm run token -- project --project p1
// npm run token -- agent --project p1 --agent a1
// npm run token -- operator                     (add --ttl 30d to change the 12h lifetime)
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { DEVELOPMENT_JWT_SECRET, loadEnvOrExit } from '../libs/config/src/index.js';

const usage = `usage: npm run token -- <role> [--ttl 12h]
  developer <developer_id>
  project --project <project_id>      (or: project <project_id>)
  agent --project <project_id> --agent <agent_id>
  operator
Prints a token signed with AUTH_JWT_SECRET (or the development secret), valid for --ttl (12h, 30m, 30d, …).`;

/** Usage on stderr and exit 2: the arguments are not ones this command takes. */
function refuse(why?: string): never {
  if (why) console.error(`npm run token: ${why}`);
  console.error(usage);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      project: { type: 'string' },
      agent: { type: 'string' },
      ttl: { type: 'string', default: '12h' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (error) {
  refuse((error as Error).message); // an unknown option, or one without its value
}
const { positionals, values } = parsed;
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const [role, subject, ...extra] = positionals;
if (extra.length > 0) refuse(`unexpected argument ${extra[0]}`);
const claims: Record<string, string> = { role };
if (role === 'developer' && subject) claims.sub = subject;
else if (role === 'project' && (values.project ?? subject)) claims.project_id = values.project ?? subject;
else if (role === 'agent' && values.project && values.agent && !subject)
  Object.assign(claims, { project_id: values.project, agent_id: values.agent });
else if (role !== 'operator' || subject) refuse();
const env = loadEnvOrExit();
if (env.AUTH_JWKS_URL && !env.AUTH_JWT_SECRET) {
  console.error('AUTH_JWKS_URL is set: tokens come from your identity provider, this CLI signs only HS256 tokens.');
  process.exit(2);
}
let signing;
try {
  signing = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience('toolgate')
    .setIssuedAt()
    .setExpirationTime(values.ttl);
} catch {
  refuse(`--ttl ${values.ttl} is not a duration (12h, 30m, 30d, …)`);
}
console.log(await signing.sign(new TextEncoder().encode(env.AUTH_JWT_SECRET ?? DEVELOPMENT_JWT_SECRET)));

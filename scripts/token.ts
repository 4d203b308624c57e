// npm run token -- developer dev_1
// npm run token -- project --project p1
// npm run token -- agent --project p1 --agent a1
// npm run token -- operator                     (add --ttl 30d to change the 12h lifetime)
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { DEVELOPMENT_JWT_SECRET, loadEnvOrExit } from '../libs/config/src/index.js';

const usage =
  'usage: npm run token -- developer <developer_id> | project --project <id> | agent --project <id> --agent <id> | operator  [--ttl 12h]';
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { project: { type: 'string' }, agent: { type: 'string' }, ttl: { type: 'string', default: '12h' } },
});
const [role, subject] = positionals;
const claims: Record<string, string> = { role };
if (role === 'developer' && subject) claims.sub = subject;
else if (role === 'project' && (values.project ?? subject)) claims.project_id = values.project ?? subject;
else if (role === 'agent' && values.project && values.agent)
  Object.assign(claims, { project_id: values.project, agent_id: values.agent });
else if (role !== 'operator') {
  console.error(usage);
  process.exit(2);
}
const env = loadEnvOrExit();
if (env.AUTH_JWKS_URL && !env.AUTH_JWT_SECRET) {
  console.error('AUTH_JWKS_URL is set: tokens come from your identity provider, this CLI signs only HS256 tokens.');
  process.exit(2);
}
const token = await new SignJWT(claims)
  .setProtectedHeader({ alg: 'HS256' })
  .setAudience('toolgate')
  .setIssuedAt()
  .setExpirationTime(values.ttl)
  .sign(new TextEncoder().encode(env.AUTH_JWT_SECRET ?? DEVELOPMENT_JWT_SECRET));
console.log(token);

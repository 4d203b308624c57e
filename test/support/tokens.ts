import { SignJWT } from 'jose';

export const TEST_JWT_SECRET = 'test-secret-of-at-least-32-characters-long';

export async function signToken(
  claims: Record<string, unknown>,
  options: { secret?: string; expiresIn?: string; audience?: string } = {},
) {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt();
  if (options.expiresIn !== '') jwt.setExpirationTime(options.expiresIn ?? '1h');
  if (options.audience !== '') jwt.setAudience(options.audience ?? 'toolgate');
  return jwt.sign(new TextEncoder().encode(options.secret ?? TEST_JWT_SECRET));
}

export const developerToken = (developerId: string) => signToken({ role: 'developer', sub: developerId });
export const projectToken = (projectId: string) => signToken({ role: 'project', project_id: projectId });
export const agentToken = (projectId: string, agentId: string) =>
  signToken({ role: 'agent', project_id: projectId, agent_id: agentId });

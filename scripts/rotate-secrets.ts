// npm run secrets:rotate: after putting a new key first in SECRETS_KEYS (old keys after it),
// re-encrypts every secret at rest under the new key. Then the old keys can be removed.
import { DEVELOPMENT_SECRETS_KEYS, loadEnvOrExit } from '../libs/config/src/index.js';
import { ReencryptSecrets } from '../libs/domain/src/index.js';
import { EncryptedColumnsRepository, PrismaService } from '../libs/persistence/src/index.js';
import { SecretBox, parseSecretKeys } from '../libs/secrets/src/index.js';

const env = loadEnvOrExit();
if (!env.DATABASE_URL) {
  console.error('DATABASE_URL is required.');
  process.exit(2);
}
const box = new SecretBox(parseSecretKeys(env.SECRETS_KEYS ?? DEVELOPMENT_SECRETS_KEYS));
const prisma = new PrismaService(env.DATABASE_URL);
try {
  const report = await new ReencryptSecrets(new EncryptedColumnsRepository(prisma), box).execute();
  for (const [column, count] of Object.entries(report.reencrypted)) console.log(`${column}: ${count} re-encrypted`);
  console.log(`${report.alreadyCurrent} value(s) were already under key "${box.currentKeyId}".`);
} catch (error) {
  console.error(`Rotation stopped: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await prisma.$disconnect();
}

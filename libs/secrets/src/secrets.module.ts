import { Global, Module } from '@nestjs/common';
import { DEVELOPMENT_SECRETS_KEYS, ENV, type Env } from '../../config/src/index.js';
import { SecretBox, parseSecretKeys } from './secret-box.js';

@Global()
@Module({
  providers: [
    {
      provide: SecretBox,
      inject: [ENV],
      useFactory: (env: Env) => new SecretBox(parseSecretKeys(env.SECRETS_KEYS ?? DEVELOPMENT_SECRETS_KEYS)),
    },
  ],
  exports: [SecretBox],
})
export class SecretsModule {}

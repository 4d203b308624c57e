# One image for the API, the worker and the migrations (docker-compose.yml chooses the command). What goes in it and
# why: docs/decisions/029-production-install.md.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The verifier is an npm workspace the build compiles: npm ci needs its package.json.
COPY libs/verifier/package.json libs/verifier/package.json
# No install scripts: the build needs none (Prisma generates its client without an engine, scripts/prisma-generate.mjs).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

# The runtime dependencies alone. --omit=optional as well: npm keeps Prisma's CLI and TypeScript under --omit=dev,
# as optional peers of @prisma/client. No workspace: nothing at runtime imports @toolgate/verifier, and its link
# (node_modules/@toolgate/verifier -> ../../libs/verifier) would dangle here. test/production-install.int-spec.ts
# runs this line as it stands.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts --workspaces=false --no-audit --no-fund

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=deps /app/node_modules ./node_modules
# package.json: its "type": "module" makes dist/ ES modules.
COPY package.json ./
COPY --from=build /app/dist ./dist
COPY prisma/migrations ./prisma/migrations
USER node
EXPOSE 3000
# The API's readiness (Postgres and Redis answer); a worker's container runs `healthcheck.js worker` instead
# (docker-compose.yml). No curl in a slim image: the check is a small Node script.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "dist/scripts/healthcheck.js", "api"]
CMD ["node", "dist/apps/api/src/main.js"]

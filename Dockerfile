# One image for the API and the worker (docker-compose.yml chooses the command).
FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV REDISMS_DISABLE_POSTINSTALL=1
COPY package.json package-lock.json ./
# the verifier is an npm workspace: npm ci needs its package.json
COPY libs/verifier/package.json libs/verifier/package.json
RUN npm ci
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma ./prisma
USER node
EXPOSE 3000
CMD ["node", "dist/apps/api/src/main.js"]

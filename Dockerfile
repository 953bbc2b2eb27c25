# syntax=docker/dockerfile:1
# Targets: `runtime` (API and workers: production dependencies, compiled dist/, generated Prisma
# client) and `migrate` (adds the Prisma CLI, a dev dependency, for `prisma migrate deploy`).
# Install scripts stay off, as on the build machines: the packages used work without them.
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund

FROM deps AS build
COPY tsconfig.json tsconfig.build.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
COPY src ./src
RUN bash scripts/prisma.sh generate && npm run build

FROM build AS migrate
ENV NODE_ENV=production
USER node
CMD ["bash", "scripts/prisma.sh", "migrate", "deploy"]

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/node_modules/.prisma ./node_modules/.prisma
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
CMD ["node", "dist/server.js"]

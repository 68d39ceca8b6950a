# syntax=docker/dockerfile:1
# Ordered action queue: multi-stage build, production dependencies only, non-root.

# --- build: compile TypeScript to dist/ -------------------------------------
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ormconfig.ts ./
COPY src ./src
COPY scripts ./scripts
COPY bench ./bench
COPY ui ./ui
RUN npm run build

# --- runtime ------------------------------------------------------------------
FROM node:20-slim AS runtime
# Listening on every interface (HOST below): reachable from outside the container, so start-up needs API_KEY
# (or TRUSTED_NETWORK=true when only trusted clients reach it; docker-compose.yml).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=16 \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The image's built-in unprivileged user.
USER node
EXPOSE 3000
# Liveness: database ping and worker loop (no curl in the slim image, so node's fetch).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Migrations run on start (serialised by an advisory lock across instances).
# SIGTERM drains running handlers for up to SHUTDOWN_TIMEOUT_MS.
CMD ["node", "dist/src/main.js"]

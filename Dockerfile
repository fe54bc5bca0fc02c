# makerd image: the compiled daemon (dist/) with production dependencies only, run as the
# unprivileged `node` user under tini. The same image runs the simulator (`makerd sim`).
#
#   docker build -t makerd .
#   docker compose --profile paper up          (docker-compose.yml: Redis, Prometheus, Grafana)
#
# The default command runs config/compose/makerd.paper.yaml (copied to /etc/makerd/makerd.yaml),
# which trades the simulator's paper account on http://sim:7878; mount a live config over it.

ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: compile TypeScript to dist/, bundle the console page to dist/console/ ----------
FROM ${NODE_IMAGE} AS build
WORKDIR /build
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` runs tsc, and the sources are not copied yet (this layer stays cached
# until the lockfile changes). esbuild needs no install script (package.json allowScripts).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY strategies ./strategies
# The operator console's page, bundled by the build to dist/console (served from there).
COPY console ./console
RUN npm run build

# --- deps: production node_modules only (no TypeScript, ESLint, test tools) -------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# --- runtime ------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# tini as PID 1: forwards SIGTERM to node (whose shutdown cancels every order and disarms the
# dead-man timer) and reaps zombies. In the image rather than compose's `init: true`, so a plain
# `docker run` gets it too.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# MAKERD_HTTP_HOST: loopback inside a container is unreachable from anything else (Prometheus, the
# host's published port), so listen on every address; makerd then refuses to start without a
# bearer token (MAKERD_HTTP_TOKEN or MAKERD_HTTP_TOKEN_FILE).
ENV NODE_ENV=production \
    MAKERD_HTTP_HOST=0.0.0.0

# Owned by root and read-only to `node`: the daemon cannot modify its own code or config.
COPY --from=deps /build/node_modules ./node_modules
COPY --from=build /build/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY config ./config
# No src/: bin/makerd.js then runs the compiled dist/src/cli/main.js without comparing it with
# sources, and the built-in strategies are found beside it, compiled, in dist/strategies. No tsx
# or esbuild either: they are dev dependencies, which the deps stage leaves out.
RUN mkdir -p /etc/makerd /run/makerd /run/makerd-read \
  && cp config/compose/makerd.paper.yaml /etc/makerd/makerd.yaml \
  && chown node:node /run/makerd /run/makerd-read
# /run/makerd, /run/makerd-read: the HTTP control and read token files (docker-compose.yml's
# http-token and read-token volumes take this owner).

USER node
EXPOSE 9464

# /healthz answers once the supervisor runs. Every request needs the bearer token when one is set
# (always, off loopback), so send MAKERD_HTTP_TOKEN or the content of MAKERD_HTTP_TOKEN_FILE.
# Node, because the slim image has no curl. Assumes the default http.token_env and the port of
# MAKERD_HTTP_PORT (else 9464). The simulator (same image) overrides this in docker-compose.yml.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const fs = require('fs'); let t = process.env.MAKERD_HTTP_TOKEN || ''; const f = process.env.MAKERD_HTTP_TOKEN_FILE; if (!t && f) { try { t = fs.readFileSync(f, 'utf8').trim(); } catch {} } require('http').get({ host: '127.0.0.1', port: process.env.MAKERD_HTTP_PORT || 9464, path: '/healthz', timeout: 4000, headers: t ? { authorization: 'Bearer ' + t } : {} }, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1)).on('timeout', () => process.exit(1));"]

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "bin/makerd.js", "run", "--config", "/etc/makerd/makerd.yaml"]

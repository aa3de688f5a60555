# Tributary for people with Docker. Equivalent to `npm run image` (deploy/image/build.sh, which
# builds with buildah from a locally assembled root filesystem and pulls nothing): the same
# assemble-rootfs.sh makes the same files, and the configuration below is the same
# (test/integration/container-image.test.ts compares them). This one pulls its build stage.
#
#   docker build -t tributary:0.1.0 .
#   docker run --read-only --tmpfs /tmp -p 8080:8080 -e DATABASE_URL=… -e ENCRYPTION_KEY=… tributary:0.1.0 serve --role api

FROM node:24-bookworm-slim AS rootfs
WORKDIR /src
COPY . .
# The full install brings the pinned runtime (the `node` package, whose install script
# package.json allows); assemble-rootfs.sh then installs the production dependencies alone.
RUN npm ci --no-audit --no-fund && deploy/image/assemble-rootfs.sh /rootfs

FROM scratch
ARG VERSION=0.1.0
COPY --from=rootfs /rootfs/ /
USER 10001:10001
WORKDIR /app
ENV NODE_ENV=production
ENV HOST=0.0.0.0
ENV PORT=8080
ENV DATA_DIR=/var/lib/tributary
EXPOSE 8080
VOLUME /var/lib/tributary
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["/usr/local/bin/node", "/app/healthcheck.mjs", "/health"]
LABEL org.opencontainers.image.title=tributary org.opencontainers.image.version=${VERSION} org.opencontainers.image.licenses=MIT
ENTRYPOINT ["/usr/local/bin/node", "/app/bin/tributary.js"]
CMD ["serve"]

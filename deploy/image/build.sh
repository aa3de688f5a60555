#!/usr/bin/env bash
# Builds the Tributary container image with Debian's buildah, pulling nothing: the root
# filesystem is assembled here (assemble-rootfs.sh: the pinned Node runtime of the npm `node`
# package and the libraries it links against, the app and its production dependencies, the
# non-root user 10001) and buildah commits it from scratch with the configuration below, which
# the Dockerfile repeats (test/integration/container-image.test.ts compares the two).
#
#   npm run image                      # localhost/tributary:<version>
#   IMAGE=registry.example.com/tributary:1.2.3 npm run image
#   OCI_ARCHIVE=tributary.tar npm run image   # also an OCI archive for skopeo/umoci or a registry
#                                             (the OCI format has no HEALTHCHECK: set probes instead)
set -euo pipefail
# Docker's image format keeps the HEALTHCHECK (the OCI image config has no field for it).
export BUILDAH_FORMAT=docker

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
NODE_BIN=$(readlink -f node_modules/node/bin/node)
[ -x "$NODE_BIN" ] || { echo "build.sh: run npm ci first (node_modules/node/bin/node is missing)" >&2; exit 1; }
# buildah is Linux-only; the image copies this machine's glibc, so build on Debian 12+ (or Ubuntu
# 22.04+), where both tools are packages. Without it, the Dockerfile builds the same image.
command -v ldd >/dev/null || { echo "build.sh: ldd is missing: sudo apt-get install libc-bin" >&2; exit 1; }
command -v buildah >/dev/null || {
  cat >&2 <<'HELP'
build.sh: buildah is missing. Install it (Linux only; build on Debian 12+ or Ubuntu 22.04+):
  sudo apt-get install buildah          # as root, or add uidmap to build as a normal user
Or build the same image with Docker: docker build -t tributary:<version> .
See docs/operating.md, "Container image".
HELP
  exit 1
}
VERSION=$("$NODE_BIN" -p "require('./package.json').version")
IMAGE=${IMAGE:-localhost/tributary:$VERSION}
APP_UID=10001

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/tributary-image.XXXXXX")
container=""
cleanup() {
  [ -n "$container" ] && buildah rm "$container" >/dev/null 2>&1 || true
  rm -rf "$STAGE"
}
trap cleanup EXIT
ROOTFS=$STAGE/rootfs
deploy/image/assemble-rootfs.sh "$ROOTFS"

echo "== buildah: from scratch"
container=$(buildah from scratch)
# A tar keeps the ownership and modes set above (a directory copy would make everything root's).
tar -C "$ROOTFS" --numeric-owner -cf "$STAGE/rootfs.tar" .
buildah add --quiet "$container" "$STAGE/rootfs.tar" /
buildah config \
  --entrypoint '["/usr/local/bin/node", "/app/bin/tributary.js"]' \
  --cmd serve \
  --user "$APP_UID:$APP_UID" \
  --workingdir /app \
  --env NODE_ENV=production \
  --env HOST=0.0.0.0 \
  --env PORT=8080 \
  --env DATA_DIR=/var/lib/tributary \
  --port 8080/tcp \
  --volume /var/lib/tributary \
  --healthcheck 'CMD /usr/local/bin/node /app/healthcheck.mjs /health' \
  --healthcheck-interval 10s \
  --healthcheck-timeout 5s \
  --healthcheck-start-period 60s \
  --healthcheck-retries 3 \
  --label org.opencontainers.image.title=tributary \
  --label "org.opencontainers.image.version=$VERSION" \
  --label org.opencontainers.image.licenses=MIT \
  "$container"
buildah commit --quiet --format docker --rm "$container" "$IMAGE" >/dev/null
container=""
echo "built $IMAGE"
if [ -n "${OCI_ARCHIVE:-}" ]; then
  buildah push --quiet "$IMAGE" "oci-archive:$OCI_ARCHIVE:$VERSION"
  echo "wrote $OCI_ARCHIVE"
fi

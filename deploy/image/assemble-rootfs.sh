#!/usr/bin/env bash
# Assembles the image's root filesystem in DIR: the pinned Node runtime of the npm `node` package
# (with the shared libraries it and the native modules link against, copied from this machine),
# the app's sources and production dependencies (npm ci --omit=dev) and the bundle built from
# them (scripts/build-bundle.ts), a passwd entry for the
# non-root user 10001, and CA certificates. Used by build.sh (buildah) and the Dockerfile alike,
# so both images hold the same files.
#
#   deploy/image/assemble-rootfs.sh DIR      (from a checkout with node_modules installed)
set -euo pipefail

ROOTFS=${1:?usage: assemble-rootfs.sh DIR}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
NODE_BIN=$(readlink -f node_modules/node/bin/node)
[ -x "$NODE_BIN" ] || { echo "assemble-rootfs.sh: run npm ci first (node_modules/node/bin/node is missing)" >&2; exit 1; }
APP_UID=10001
mkdir -p "$ROOTFS"/{app,usr/local/bin,etc/ssl/certs,tmp,var/lib/tributary}

echo "== the app and its production dependencies"
cp -a bin src package.json package-lock.json "$ROOTFS/app/"
# Workspace packages are part of the lockfile; npm ci links them.
cp -a packages "$ROOTFS/app/"
rm -rf "$ROOTFS"/app/packages/*/node_modules
cp deploy/image/healthcheck.mjs "$ROOTFS/app/healthcheck.mjs"
(cd "$ROOTFS/app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error)
# Type declarations and source maps of dependencies are not run: leave them out.
find "$ROOTFS/app/node_modules" \( -name '*.d.ts' -o -name '*.map' \) -delete
# The bundle the launcher runs (a later start loads a few files instead of ~1,800 modules), built
# from the image's own files with this checkout's esbuild (a devDependency, not in the image).
"$NODE_BIN" scripts/build-bundle.ts --root="$ROOTFS/app"

echo "== the Node runtime ($("$NODE_BIN" --version), from the npm node package) and its libraries"
cp "$NODE_BIN" "$ROOTFS/usr/local/bin/node"
# The loader and every library the runtime and native modules link against, as this machine has them.
libraries() {
  ldd "$@" 2>/dev/null | awk '/=> \//{print $3} /^\s*\/lib/{print $1}' | sort -u
}
mapfile -t natives < <(find "$ROOTFS/app/node_modules" -name '*.node')
for library in $(libraries "$ROOTFS/usr/local/bin/node" "${natives[@]}"); do
  mkdir -p "$ROOTFS$(dirname "$library")"
  cp -L "$library" "$ROOTFS$library"
done

echo "== users, certificates, writable places"
printf 'root:x:0:0:root:/root:/sbin/nologin\ntributary:x:%s:%s:tributary:/app:/sbin/nologin\n' "$APP_UID" "$APP_UID" >"$ROOTFS/etc/passwd"
printf 'root:x:0:\ntributary:x:%s:\n' "$APP_UID" >"$ROOTFS/etc/group"
printf 'hosts: files dns\n' >"$ROOTFS/etc/nsswitch.conf"
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then cp /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/"; fi
chmod 1777 "$ROOTFS/tmp"
chown "$APP_UID:$APP_UID" "$ROOTFS/var/lib/tributary"
chmod 0700 "$ROOTFS/var/lib/tributary"
# The app is read-only to the user it runs as.
chown -R 0:0 "$ROOTFS/app" "$ROOTFS/usr"
chmod -R go-w "$ROOTFS/app"

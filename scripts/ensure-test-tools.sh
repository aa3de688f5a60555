#!/usr/bin/env bash
# The system tools some tests drive, from Debian's packages (nothing downloaded by the tools
# themselves): Chromium for the browser tests (driven by playwright-core) and poppler-utils'
# pdftoppm, which turns generated lab reports into low-resolution "photos" for the OCR tests;
# buildah, podman (with runc), skopeo and umoci for the container image test; nats-server (with
# JetStream) for the stream destination's tests, which start one of their own on a free port.
# Installs what is missing when we are root on a Debian-like machine; otherwise says how (the
# tests that need a missing tool fail or skip and say which).
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v pdftoppm >/dev/null 2>&1 || missing+=(poppler-utils)
command -v nats-server >/dev/null 2>&1 || missing+=(nats-server)
for tool in buildah podman skopeo umoci runc; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's ${missing[*]} for the tests…"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "warning: missing ${missing[*]}; tests that need them fail or skip. Install with: sudo apt-get install ${missing[*]}" >&2

#!/usr/bin/env bash
# The browser tests drive Debian's Chromium with playwright-core (no browser downloads).
# Installs it when missing and we are root on a Debian-like machine; otherwise says how.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's chromium for the browser tests…"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "warning: /usr/bin/chromium is missing; the browser tests will fail. Install it with: sudo apt-get install chromium" >&2

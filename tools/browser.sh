#!/usr/bin/env bash
# Debian's chromium for the HTML report's browser test (tests/test_cli_report.py drives it
# through Playwright; Playwright's own browser download is never used). Installs it only
# when /usr/bin/chromium is missing.
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  sudo_=""; [ "$(id -u)" -ne 0 ] && sudo_="sudo"
  $sudo_ apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq chromium >/dev/null
fi

#!/usr/bin/env bash
# install-report-deps.sh - installs the Debian packages the report tests read
# the rendered files with, when any is missing: LibreOffice Calc (headless,
# xlsx -> csv), Chromium (headless load + screenshot of report.html),
# poppler-utils (pdfinfo, pdftoppm, pdftotext) and the DejaVu fonts the
# charts pin. Idempotent and quiet when everything is there. `make test`
# calls it; so can a developer.
set -euo pipefail

pkgs=(poppler-utils fonts-dejavu-core chromium)
# The "nogui" flavour is enough for --headless --convert-to and is far
# smaller; fall back to the full package where the distribution lacks it.
if apt-cache show libreoffice-calc-nogui >/dev/null 2>&1 || \
   dpkg-query -W -f='${Status}' libreoffice-calc-nogui 2>/dev/null | grep -q "install ok installed"; then
  pkgs+=(libreoffice-calc-nogui)
else
  pkgs+=(libreoffice-calc)
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

missing=()
for p in "${pkgs[@]}"; do
  if [ "$p" = libreoffice-calc-nogui ] && installed libreoffice-calc; then continue; fi
  installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-report-deps: installing ${missing[*]} (large: LibreOffice and Chromium)"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# install-deps.sh - installs the Debian packages benchgen builds, tests and
# renders with, when any is missing. Idempotent and quiet when all are there.
set -euo pipefail

pkgs=(
  build-essential pkg-config git ca-certificates
  libsqlite3-dev sqlite3        # run.db
  libyaml-dev                   # matrix specs
  libjansson-dev                # worker protocol, show --json, manifests
  libssl-dev                    # SHA-256 (libcrypto)
  libcmocka-dev                 # unit tests
  libcairo2-dev libpango1.0-dev fonts-dejavu-core   # charts and PDF
  libxlsxwriter-dev             # workbook
  libarchive-dev                # release bundles
  zlib1g-dev                    # PNG encoding of charts
  clang libclang-rt-14-dev      # libFuzzer targets in tests/fuzz (make fuzz, make test)
  poppler-utils                 # pdfinfo/pdftoppm in tests
  slurmctld slurmd slurm-client munge   # the one-node cluster of tests/integration/test_slurm.sh
  podman runc uidmap            # container workers in tests/integration/test_container_podman.sh
)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

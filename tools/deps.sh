#!/usr/bin/env bash
# Installs the Debian 12 packages npusim needs, if any is missing. Run as root.
set -euo pipefail
pkgs=(cmake make ninja-build g++ pkg-config libsystemc-dev catch2 libspdlog-dev libfmt-dev libyaml-cpp-dev
      nlohmann-json3-dev libcli11-dev libbenchmark-dev clang libclang-rt-14-dev clang-14 llvm-14-dev
      lld-14  # ld.lld-14: links `npusim cc` programs (docs/snitch-programs.md)
      lld python3 python3-yaml python3-jsonschema libjs-d3 chromium
      python3-torch  # the Python package's tests (docs/python.md): PyTorch 1.13 for /usr/bin/python3
      slurm-wlm munge)  # slurm-wlm, munge: the single-node Slurm test (tests/slurm/)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}"
fi
